/* A pool of P threads, created on the first parallel loop and reused by every later one (as an
 * OpenMP runtime does), so that thread start-up is paid once and not per loop. parallel_for
 * splits [0, n) in blocks: thread t gets [t*n/P, (t+1)*n/P); the caller is thread 0. The thread
 * count P is the processor count of seed 003's P-models. */
#ifndef SCALING_PAR_H
#define SCALING_PAR_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Called once per thread with its index and its block. */
typedef void (*range_fn)(int thread, long lo, long hi);

static int pool_size;
static pthread_barrier_t loop_start, loop_done;
static range_fn loop_body;
static long loop_n;

static void run_block(int t)
{
    loop_body(t, loop_n * t / pool_size, loop_n * (t + 1) / pool_size);
}

static void *pool_worker(void *index)
{
    for (;;) {
        pthread_barrier_wait(&loop_start);
        run_block((int)(long)index);
        pthread_barrier_wait(&loop_done);
    }
    return NULL;
}

static void start_pool(int threads)
{
    pool_size = threads;
    pthread_barrier_init(&loop_start, NULL, threads);
    pthread_barrier_init(&loop_done, NULL, threads);
    for (long t = 1; t < threads; t++) {
        pthread_t id;
        if (pthread_create(&id, NULL, pool_worker, (void *)t) != 0) {
            perror("pthread_create");
            exit(1);
        }
        pthread_detach(id);
    }
}

static void parallel_for(int threads, long n, range_fn fn)
{
    if (pool_size == 0) start_pool(threads);
    loop_body = fn;
    loop_n = n;
    pthread_barrier_wait(&loop_start);
    run_block(0);
    pthread_barrier_wait(&loop_done);
}

/* argv: N [P]; both positive. */
static void parse_args(int argc, char **argv, long *n, int *threads)
{
    if (argc < 2 || argc > 3 || (*n = atol(argv[1])) <= 0 || (*threads = argc == 3 ? atoi(argv[2]) : 1) <= 0) {
        fprintf(stderr, "usage: %s N [P]\n", argv[0]);
        exit(2);
    }
}
#endif
