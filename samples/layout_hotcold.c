/* layout_hotcold: an array of N particles (argv[1], default 50000) whose
 * position and velocity are updated argv[2] times (default 20) while their
 * id and name sit in the same 120-byte records; the ids are summed once at
 * the end. trace-layout should advise splitting {x,y,z,vx,vy,vz} (offsets
 * 0-40) from {id} (48); layout_hotcold_opt.c applies it. With a third
 * argument the update loop's run time goes to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct particle {
    double x, y, z, vx, vy, vz;
    long id;
    char name[64];
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    struct particle *p = calloc((size_t)n, sizeof *p);
    if (!p)
        return 1;
    for (long i = 0; i < n; i++) {
        p[i].vx = 0.001 * (double)(i % 13);
        p[i].vy = 0.002 * (double)(i % 7);
        p[i].vz = -0.001 * (double)(i % 5);
        p[i].id = i * 3;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++)
        for (long i = 0; i < n; i++) {
            p[i].x += p[i].vx;
            p[i].y += p[i].vy;
            p[i].z += p[i].vz;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ids = 0;
    for (long i = 0; i < n; i++)
        ids += p[i].id;
    if (argc > 3)
        fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) +
                                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%.3f %ld\n", p[n - 1].x + p[n / 2].y + p[0].z, ids);
    free(p);
    return 0;
}
