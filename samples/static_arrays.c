/* static_arrays: static and global arrays of distinct known sizes (static int table[1000], global double grid[64][64], a 16-byte const lookup table bits) and a heap block never freed (hist), read and written in known counts over argv[1] passes (default 3): table 1000 stores + 4096 loads a pass, grid 4096 stores + 4096 loads a pass, bits 4096 loads a pass, hist 16 stores + 16 loads. */
#include <stdio.h>
#include <stdlib.h>

/* One access of lvalue x, exactly as written: the optimiser may neither
 * drop, merge nor split it, so the trace holds the counts stated above. */
#define V(x) (*(volatile __typeof__(x) *)&(x))

static int table[1000];         /* 4000 bytes, file-local */
double grid[64][64];            /* 32768 bytes, global */
static const unsigned char bits[16] = {  /* 16 bytes: set bits of a nibble */
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* table: 1000 stores. */
static void fill(void)
{
    for (int i = 0; i < 1000; i++)
        V(table[i]) = (i * 7) % 1000;
}

/* One pass: grid 4096 stores, table and bits 4096 loads each; then grid
 * 4096 loads. */
static double pass(int p)
{
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            V(grid[i][j]) = V(table[(i * 64 + j + p) % 1000]) + V(bits[(i ^ j) & 15]);
    double s = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            s += V(grid[i][j]);
    return s;
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 3;
    long *hist = malloc(16 * sizeof *hist);    /* never freed */
    if (!hist)
        return 1;
    fill();
    double s = 0;
    for (int p = 0; p < passes; p++)
        s += pass(p);
    for (int k = 0; k < 16; k++)               /* hist: 16 stores */
        V(hist[k]) = k * (long)s;
    long h = 0;
    for (int k = 0; k < 16; k++)               /* hist: 16 loads */
        h += V(hist[k]);
    printf("%.0f %ld\n", s, h);
    return 0;
}
