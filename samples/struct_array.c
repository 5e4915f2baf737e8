/* struct_array: an array of N structs (argv[1], default 100000) swept field by field (one pass per field: strided accesses), argv[2] times (default 10). */
#include <stdio.h>
#include <stdlib.h>

/* A 32-byte record: each sweep touches one field, so the stride is 32. */
struct particle {
    double x, y;
    float mass;
    int id;
    long flags;
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    struct particle *p = calloc((size_t)n, sizeof *p);
    if (!p)
        return 1;
    for (long i = 0; i < n; i++)
        p[i].id = (int)i;
    double sx = 0, sy = 0, sm = 0;
    long sf = 0;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++) p[i].x += 0.5;
        for (long i = 0; i < n; i++) p[i].y = p[i].x * 2;
        for (long i = 0; i < n; i++) p[i].mass = (float)(p[i].id % 10);
        for (long i = 0; i < n; i++) p[i].flags ^= p[i].id;
    }
    for (long i = 0; i < n; i++) {
        sx += p[i].x; sy += p[i].y; sm += p[i].mass; sf += p[i].flags;
    }
    printf("struct_array: %.1f %.1f %.1f %ld\n", sx, sy, sm, sf);
    free(p);
    return 0;
}
