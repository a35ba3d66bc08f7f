/* Merge sort of N pseudo-random keys: each of P threads sorts its block bottom-up, then the
 * sorted blocks are merged pairwise, log2 P levels. Runs ping-pong between three buffers (a
 * merge writes to the one holding neither input) and are never copied back, so every level
 * streams its keys once and no copy-back adds parity steps to the miss counts. */
#include "par.h"

static long n;
static int threads;
static unsigned *buffer[3];
static int *run_buffer;   /* per thread: the buffer its sorted run is in */

static void fill(void)
{
    unsigned x = 12345;
    for (long i = 0; i < n; i++) buffer[0][i] = x = x * 1103515245u + 12345u;
}

static void merge(const unsigned *left, const unsigned *right, unsigned *dst, long lo, long mid, long hi)
{
    long i = lo, j = mid, k = lo;
    while (i < mid && j < hi) dst[k++] = left[i] <= right[j] ? left[i++] : right[j++];
    while (i < mid) dst[k++] = left[i++];
    while (j < hi) dst[k++] = right[j++];
}

static void sort_block(int thread, long lo, long hi)
{
    int src = 0;
    for (long width = 1; width < hi - lo; width *= 2) {
        for (long s = lo; s < hi; s += 2 * width) {
            long mid = s + width < hi ? s + width : hi, end = s + 2 * width < hi ? s + 2 * width : hi;
            merge(buffer[src], buffer[src], buffer[1 - src], s, mid, end);
        }
        src = 1 - src;
    }
    run_buffer[thread] = src;
}

/* Returns the buffer holding all N keys sorted. */
static int merge_blocks(void)
{
    for (int width = 1; width < threads; width *= 2)
        for (int t = 0; t + width < threads; t += 2 * width) {
            int a = run_buffer[t], b = run_buffer[t + width], dst = 0;
            while (dst == a || dst == b) dst++;
            long hi = n * (t + 2 * width < threads ? t + 2 * width : threads) / threads;
            merge(buffer[a], buffer[b], buffer[dst], n * t / threads, n * (t + width) / threads, hi);
            run_buffer[t] = dst;
        }
    return run_buffer[0];
}

static int is_sorted(const unsigned *keys)
{
    for (long i = 1; i < n; i++) if (keys[i - 1] > keys[i]) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv, &n, &threads);
    for (int b = 0; b < 3; b++)
        if (!(buffer[b] = malloc(n * sizeof *buffer[b]))) return 1;
    run_buffer = malloc(threads * sizeof *run_buffer);
    if (!run_buffer) return 1;
    fill();
    parallel_for(threads, n, sort_block);
    printf("%s\n", is_sorted(buffer[merge_blocks()]) ? "sorted" : "NOT SORTED");
    return 0;
}
