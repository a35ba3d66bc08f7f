// A program of known composition for checking on-/off-CPU attribution: each phase spends
// its time in one way, on one marked line, and the program measures what each phase took
// (CPU time for compute, wall time for waits) and prints it as JSON on stdout.
//   compute  on-CPU            line marked @compute
//   io       fsync + pread     lines marked @fsync, @pread (blocked in D state: I/O)
//   sleep    nanosleep         line marked @sleep (S outside locks: other)
//   handoff  pthread_cond_wait line marked @condwait (S in futex: sync), while a helper
//            thread computes on the line marked @helper
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile uint64_t sink;

/* Spins until this thread has used `ms` of CPU time. */
static void spin_cpu(double ms) {
  double end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms;
  uint64_t x = 1;
  while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end) {
    for (int i = 0; i < 20000; i++) x = (x ^ (uint64_t)i) * 0x100000001b3ULL; /* @compute */
  }
  sink = x;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int helper_done;
static double helper_cpu_ms;
static double helper_ms;

static void *helper(void *arg) {
  double start = now_ms(CLOCK_THREAD_CPUTIME_ID);
  double end = start + helper_ms;
  uint64_t x = 7;
  while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end) {
    for (int i = 0; i < 20000; i++) x = (x + (uint64_t)i) * 0x9e3779b97f4a7c15ULL; /* @helper */
  }
  sink = x;
  helper_cpu_ms = now_ms(CLOCK_THREAD_CPUTIME_ID) - start;
  pthread_mutex_lock(&lock);
  helper_done = 1;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(int argc, char **argv) {
  double compute_ms = argc > 1 ? atof(argv[1]) : 300;
  int io_rounds = argc > 2 ? atoi(argv[2]) : 60;
  int sleeps = argc > 3 ? atoi(argv[3]) : 5;
  helper_ms = argc > 4 ? atof(argv[4]) : 200;
  const char *path = argc > 5 ? argv[5] : "blocking.dat";

  double t = now_ms(CLOCK_THREAD_CPUTIME_ID);
  spin_cpu(compute_ms);
  double compute_cpu = now_ms(CLOCK_THREAD_CPUTIME_ID) - t;

  enum { BLOCK = 1024 * 1024 };
  char *buf = aligned_alloc(4096, BLOCK);
  memset(buf, 'x', BLOCK);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  int direct = open(path, O_RDONLY | O_DIRECT);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  /* Wall time minus CPU time of each call: what it spent blocked. */
  double fsync_wall = 0, fsync_cpu = 0, pread_wall = 0, pread_cpu = 0;
  for (int r = 0; r < io_rounds; r++) {
    if (pwrite(fd, buf, BLOCK, (off_t)r * BLOCK) != BLOCK) return 1;
    t = now_ms(CLOCK_MONOTONIC);
    double c = now_ms(CLOCK_THREAD_CPUTIME_ID);
    fsync(fd); /* @fsync */
    fsync_cpu += now_ms(CLOCK_THREAD_CPUTIME_ID) - c;
    fsync_wall += now_ms(CLOCK_MONOTONIC) - t;
    t = now_ms(CLOCK_MONOTONIC);
    c = now_ms(CLOCK_THREAD_CPUTIME_ID);
    if (pread(direct >= 0 ? direct : fd, buf, BLOCK, (off_t)r * BLOCK) < 0) return 1; /* @pread */
    pread_cpu += now_ms(CLOCK_THREAD_CPUTIME_ID) - c;
    pread_wall += now_ms(CLOCK_MONOTONIC) - t;
  }
  close(fd);
  if (direct >= 0) close(direct);
  unlink(path);

  t = now_ms(CLOCK_MONOTONIC);
  for (int s = 0; s < sleeps; s++) {
    struct timespec ts = {0, 40 * 1000 * 1000};
    nanosleep(&ts, NULL); /* @sleep */
  }
  double sleep_wall = now_ms(CLOCK_MONOTONIC) - t;

  pthread_t thread;
  t = now_ms(CLOCK_MONOTONIC);
  pthread_create(&thread, NULL, helper, NULL);
  pthread_mutex_lock(&lock);
  while (!helper_done) pthread_cond_wait(&done_cond, &lock); /* @condwait */
  pthread_mutex_unlock(&lock);
  double wait_wall = now_ms(CLOCK_MONOTONIC) - t;
  pthread_join(thread, NULL);

  printf("{\"computeCpuMs\": %.3f, \"fsyncBlockedMs\": %.3f, \"preadBlockedMs\": %.3f, \"sleepWallMs\": %.3f, "
         "\"condWaitWallMs\": %.3f, \"helperCpuMs\": %.3f, \"direct\": %s}\n",
         compute_cpu, fsync_wall - fsync_cpu, pread_wall - pread_cpu, sleep_wall, wait_wall, helper_cpu_ms,
         direct >= 0 ? "true" : "false");
  free(buf);
  return 0;
}
