/* Dense C = A·B in i-k-j order (rows of B streamed into a row of C), rows of C split over P threads. */
#include "par.h"

static long n;
static double *a, *b, *c;

static void init(void)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (double)(i + j) / n;
            b[i * n + j] = (double)(i - j) / n;
        }
}

static void multiply_rows(int thread, long lo, long hi)
{
    (void)thread;
    for (long i = lo; i < hi; i++) {
        for (long j = 0; j < n; j++) c[i * n + j] = 0;
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++) c[i * n + j] += a[i * n + k] * b[k * n + j];
    }
}

static double checksum(void)
{
    double s = 0;
    for (long i = 0; i < n * n; i++) s += c[i];
    return s;
}

int main(int argc, char **argv)
{
    int threads;
    parse_args(argc, argv, &n, &threads);
    a = malloc(n * n * sizeof *a);
    b = malloc(n * n * sizeof *b);
    c = malloc(n * n * sizeof *c);
    if (!a || !b || !c) return 1;
    init();
    parallel_for(threads, n, multiply_rows);
    printf("%.6g\n", checksum());
    return 0;
}
