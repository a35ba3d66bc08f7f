/* Jacobi 5-point sweeps on an N×N grid, ten sweeps, rows split over P threads. */
#include "par.h"

#define SWEEPS 10

static long n;
static double *grid, *next;

static void init(void)
{
    for (long i = 0; i < n * n; i++) grid[i] = next[i] = (i % n == 0 || i < n) ? 1.0 : 0.0;
}

static void sweep_rows(int thread, long lo, long hi)
{
    (void)thread;
    for (long i = lo < 1 ? 1 : lo; i < hi && i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            next[i * n + j] = 0.25 * (grid[(i - 1) * n + j] + grid[(i + 1) * n + j] + grid[i * n + j - 1] + grid[i * n + j + 1]);
}

static double residual(void)
{
    double r = 0;
    for (long i = 0; i < n * n; i++) r += grid[i] - next[i];
    return r;
}

int main(int argc, char **argv)
{
    int threads;
    parse_args(argc, argv, &n, &threads);
    grid = malloc(n * n * sizeof *grid);
    next = malloc(n * n * sizeof *next);
    if (!grid || !next) return 1;
    init();
    for (int s = 0; s < SWEEPS; s++) {
        parallel_for(threads, n, sweep_rows);
        double *t = grid; grid = next; next = t;
    }
    printf("%.6g\n", residual());
    return 0;
}
