/* Out-of-place transpose of an N×N matrix of doubles, three times over (there and back and
 * there), rows of the source split over P threads. */
#include "par.h"

static long n;
static double *src, *dst;

static void init(void)
{
    for (long i = 0; i < n * n; i++) src[i] = (double)i;
}

static void transpose_rows(int thread, long lo, long hi)
{
    (void)thread;
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < n; j++) dst[j * n + i] = src[i * n + j];
}

static double trace(void)
{
    double t = 0;
    for (long i = 0; i < n; i++) t += dst[i * n + i];
    return t;
}

int main(int argc, char **argv)
{
    int threads;
    parse_args(argc, argv, &n, &threads);
    src = malloc(n * n * sizeof *src);
    dst = malloc(n * n * sizeof *dst);
    if (!src || !dst) return 1;
    init();
    for (int r = 0; r < 3; r++) {
        parallel_for(threads, n, transpose_rows);
        double *t = src; src = dst; dst = t;
    }
    printf("%.6g\n", trace());
    return 0;
}
