/*
 * workers.c - Causal Lens sample: an unbalanced worker pool profiled with COZ.
 *
 * Two long-lived worker threads process the work in rounds.  In every round
 * each worker runs one task (its own slot in tasks[]):
 *
 *   task 0  "render_tile"   long  (~2 units)     -> worker 0
 *   task 1  "update_stats"  short (~1 unit)      -> worker 1
 *
 * After its task a worker waits at a barrier; the round ends when both tasks
 * are done, and one worker then records COZ_PROGRESS (one visit per round).
 * The short task's worker therefore idles at the barrier for half of every
 * round: the long task is the critical path.
 *
 * Expected causal profile: speeding up the long task's hot line speeds the
 * program up (until it is as short as the other task, at ~50% line speedup);
 * speeding up the short task's hot line does nothing.
 *
 * Usage: workers [rounds [work_long [work_short]]]   (work = inner-loop iterations)
 */
#include <coz.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NWORKERS 2

typedef struct {
  int kind;        /* 0 = long task, 1 = short task */
  uint64_t digest; /* xor of this worker's results */
} task_t;

static unsigned long n_rounds = 9000;
static unsigned work_long = 5000000;
static unsigned work_short = 2500000;

static task_t tasks[NWORKERS];
static pthread_barrier_t round_done;

/* The long task: a serial multiply/xor chain. */
static uint64_t render_tile(uint64_t x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = (x ^ i) * 0x100000001b3ULL;   /* HOT long task (critical path) */
  return x;
}

/* The short task: the same kind of chain, fewer iterations. */
static uint64_t update_stats(uint64_t x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = (x + i) * 0x9e3779b97f4a7c15ULL; /* HOT short task (has slack) */
  return x;
}

static void *worker(void *arg) {
  task_t *t = arg;
  for (unsigned long r = 0; r < n_rounds; r++) {
    uint64_t seed = r * 2654435761ULL + (uint64_t)t->kind;
    if (t->kind == 0)
      t->digest ^= render_tile(seed, work_long);
    else
      t->digest ^= update_stats(seed, work_short);

    /* Exactly one worker per round gets PTHREAD_BARRIER_SERIAL_THREAD. */
    if (pthread_barrier_wait(&round_done) == PTHREAD_BARRIER_SERIAL_THREAD) {
      COZ_PROGRESS; /* one round finished */
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) n_rounds = strtoul(argv[1], NULL, 10);
  if (argc > 2) work_long = (unsigned)strtoul(argv[2], NULL, 10);
  if (argc > 3) work_short = (unsigned)strtoul(argv[3], NULL, 10);

  pthread_barrier_init(&round_done, NULL, NWORKERS);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);

  pthread_t th[NWORKERS];
  for (int w = 0; w < NWORKERS; w++) {
    tasks[w].kind = w;
    pthread_create(&th[w], NULL, worker, &tasks[w]);
  }
  uint64_t digest = 0;
  for (int w = 0; w < NWORKERS; w++) {
    pthread_join(th[w], NULL);
    digest ^= tasks[w].digest;
  }

  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("workers: %lu rounds (work_long=%u work_short=%u) in %.2f s, %.0f rounds/s, digest %016llx\n",
         n_rounds, work_long, work_short, secs, (double)n_rounds / secs, (unsigned long long)digest);
  pthread_barrier_destroy(&round_done);
  return 0;
}
