/* Histogram of N keys into 4096 bins: each of P threads zeroes and fills a private histogram
 * of its block (zeroed by its owner, not by calloc, whose cost would change at glibc's mmap
 * threshold), then the private histograms are summed. */
#include "par.h"

#define BINS 4096

static long n;
static unsigned *keys;
static long (*partial)[BINS];
static int threads;

static void fill(void)
{
    unsigned x = 2463534242u;
    for (long i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        keys[i] = x;
    }
}

static void count_block(int thread, long lo, long hi)
{
    for (long b = 0; b < BINS; b++) partial[thread][b] = 0;
    for (long i = lo; i < hi; i++) partial[thread][keys[i] % BINS]++;
}

static long reduce(void)
{
    static long total[BINS];
    long max = 0;
    for (int t = 0; t < threads; t++)
        for (long b = 0; b < BINS; b++) total[b] += partial[t][b];
    for (long b = 0; b < BINS; b++)
        if (total[b] > max) max = total[b];
    return max;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv, &n, &threads);
    keys = malloc(n * sizeof *keys);
    partial = malloc(threads * sizeof *partial);
    if (!keys || !partial) return 1;
    fill();
    parallel_for(threads, n, count_block);
    printf("%ld\n", reduce());
    return 0;
}
