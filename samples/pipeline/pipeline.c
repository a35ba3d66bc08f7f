/*
 * pipeline.c - Causal Lens sample: a threaded pipeline profiled with COZ.
 *
 *   producer --q1--> stage A "transform" --q2--> stage B "checksum" --q3--> consumer
 *                    (heavy, ~2 units/item)      (light, ~1 unit/item)
 *
 * Every stage is its own thread; the queues are bounded mutex/condvar ring
 * buffers (COZ intercepts pthread_mutex_* and pthread_cond_*, which is what
 * lets it account virtual speedups across threads).  Stage A costs about
 * twice as much as stage B per item, so stage A limits throughput and
 * stage B spends most of its time waiting for input.
 *
 * Progress points:
 *   COZ_PROGRESS             in the consumer, once per finished item (throughput)
 *   COZ_BEGIN/COZ_END "item" producer -> consumer, once per item (latency)
 *
 * Expected causal profile: speeding up the stage-A hot line speeds the whole
 * program up (until stage B becomes the bottleneck at ~50% line speedup);
 * speeding up the stage-B hot line does nothing.
 *
 * Usage: pipeline [items [work_a [work_b]]]   (work = inner-loop iterations)
 */
#include <coz.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define QCAP 8

typedef struct {
  uint64_t seq;
  uint64_t value;
} item_t;

typedef struct {
  item_t buf[QCAP];
  unsigned head, count;
  pthread_mutex_t lock;
  pthread_cond_t not_empty, not_full;
} queue_t;

static queue_t q1, q2, q3;
static unsigned long n_items = 24000;
static unsigned work_a = 1800000;
static unsigned work_b = 900000;

static void queue_init(queue_t *q) {
  q->head = q->count = 0;
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->not_empty, NULL);
  pthread_cond_init(&q->not_full, NULL);
}

static void queue_push(queue_t *q, item_t it) {
  pthread_mutex_lock(&q->lock);
  while (q->count == QCAP) pthread_cond_wait(&q->not_full, &q->lock);
  q->buf[(q->head + q->count) % QCAP] = it;
  q->count++;
  pthread_cond_signal(&q->not_empty);
  pthread_mutex_unlock(&q->lock);
}

static item_t queue_pop(queue_t *q) {
  pthread_mutex_lock(&q->lock);
  while (q->count == 0) pthread_cond_wait(&q->not_empty, &q->lock);
  item_t it = q->buf[q->head];
  q->head = (q->head + 1) % QCAP;
  q->count--;
  pthread_cond_signal(&q->not_full);
  pthread_mutex_unlock(&q->lock);
  return it;
}

/* Stage A work: a serial multiply/xor chain, ~2 units per item. */
static uint64_t transform(uint64_t x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = (x ^ i) * 0x100000001b3ULL;   /* HOT stage A (bottleneck) */
  return x;
}

/* Stage B work: the same kind of chain, ~1 unit per item. */
static uint64_t checksum(uint64_t x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = (x + i) * 0x9e3779b97f4a7c15ULL; /* HOT stage B (light) */
  return x;
}

static void *producer(void *arg) {
  (void)arg;
  for (unsigned long s = 0; s < n_items; s++) {
    COZ_BEGIN("item");
    queue_push(&q1, (item_t){s, s * 2654435761ULL + 1});
  }
  queue_push(&q1, (item_t){UINT64_MAX, 0}); /* end-of-stream marker */
  return NULL;
}

static void *stage_a(void *arg) {
  (void)arg;
  for (;;) {
    item_t it = queue_pop(&q1);
    if (it.seq != UINT64_MAX) it.value = transform(it.value, work_a);
    queue_push(&q2, it);
    if (it.seq == UINT64_MAX) return NULL;
  }
}

static void *stage_b(void *arg) {
  (void)arg;
  for (;;) {
    item_t it = queue_pop(&q2);
    if (it.seq != UINT64_MAX) it.value = checksum(it.value, work_b);
    queue_push(&q3, it);
    if (it.seq == UINT64_MAX) return NULL;
  }
}

static void *consumer(void *arg) {
  uint64_t *digest = arg;
  for (;;) {
    item_t it = queue_pop(&q3);
    if (it.seq == UINT64_MAX) return NULL;
    *digest ^= it.value + it.seq;
    COZ_END("item");
    COZ_PROGRESS; /* one item fully processed */
  }
}

int main(int argc, char **argv) {
  if (argc > 1) n_items = strtoul(argv[1], NULL, 10);
  if (argc > 2) work_a = (unsigned)strtoul(argv[2], NULL, 10);
  if (argc > 3) work_b = (unsigned)strtoul(argv[3], NULL, 10);

  queue_init(&q1);
  queue_init(&q2);
  queue_init(&q3);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);

  uint64_t digest = 0;
  pthread_t tp, ta, tb, tc;
  pthread_create(&tp, NULL, producer, NULL);
  pthread_create(&ta, NULL, stage_a, NULL);
  pthread_create(&tb, NULL, stage_b, NULL);
  pthread_create(&tc, NULL, consumer, &digest);
  pthread_join(tp, NULL);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  pthread_join(tc, NULL);

  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("pipeline: %lu items (work_a=%u work_b=%u) in %.2f s, %.0f items/s, digest %016llx\n",
         n_items, work_a, work_b, secs, (double)n_items / secs, (unsigned long long)digest);
  return 0;
}
