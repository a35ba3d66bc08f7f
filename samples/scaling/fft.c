/* Iterative radix-2 FFT of N = 2^k complex points; each stage's butterflies split over P threads. */
#include "par.h"
#include <complex.h>
#include <math.h>

static long n;
static double complex *x, *twiddle;
static long half;   /* butterfly span of the current stage */

static void init(void)
{
    for (long i = 0; i < n; i++) x[i] = (double)(i % 17) - 8.0;
    for (long i = 0; i < n / 2; i++) twiddle[i] = cexp(-2.0 * M_PI * I * (double)i / (double)n);
}

static void bit_reverse(void)
{
    for (long i = 1, j = 0; i < n; i++) {
        long bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { double complex t = x[i]; x[i] = x[j]; x[j] = t; }
    }
}

/* Butterflies b in [lo, hi) of n/2: group b / half, offset b % half. */
static void butterflies(int thread, long lo, long hi)
{
    (void)thread;
    long stride = n / (2 * half);
    for (long b = lo; b < hi; b++) {
        long top = (b / half) * 2 * half + b % half;
        double complex t = twiddle[(b % half) * stride] * x[top + half];
        x[top + half] = x[top] - t;
        x[top] += t;
    }
}

static double magnitude(void)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += cabs(x[i]);
    return s;
}

int main(int argc, char **argv)
{
    int threads;
    parse_args(argc, argv, &n, &threads);
    if (n & (n - 1)) { fprintf(stderr, "fft: N must be a power of two\n"); return 2; }
    x = malloc(n * sizeof *x);
    twiddle = malloc(n / 2 * sizeof *twiddle);
    if (!x || !twiddle) return 1;
    init();
    bit_reverse();
    for (half = 1; half < n; half *= 2) parallel_for(threads, n / 2, butterflies);
    printf("%.6g\n", magnitude());
    return 0;
}
