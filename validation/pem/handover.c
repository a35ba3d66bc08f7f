/* Does a rank polling with sched_yield (Open MPI's mpi_yield_when_idle) get its core when a
 * computing rank on that core reaches a call and yields, or only later? PEM assumes at once
 * (engine.ts, tickWait); docs/pem.md ("Handing a core over at a yield") has what this measured.
 *
 *   gcc -O2 -o /tmp/handover validation/pem/handover.c && /tmp/handover SPINNERS [WORK_S] [YIELD_S] [SECONDS]
 *
 * On CPU 1: a poller (reads a shared flag, yields), SPINNERS processes that only compute, and a
 * worker that computes WORK_S seconds, sets the flag and then yields for YIELD_S seconds (a rank
 * that sent its result and waits for the next task). Prints the poller's latency from the flag
 * being set to it being seen: median, p70, p90, the share over 100 us, and the mean. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_SAMPLES = 4000, MAX_SPINNERS = 6 };

struct shared {
  _Atomic double set_at;
  _Atomic int stop;
  _Atomic int count;
  double latency[MAX_SAMPLES];
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("handover: sched_setaffinity");
    _exit(2);
  }
}

static void spin_until(double seconds) {
  volatile double x = 1;
  double start = now();
  while (now() - start < seconds) x = x * 1.0000001 + 1e-9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int spinners = argc > 1 ? atoi(argv[1]) : 1;
  double work = argc > 2 ? atof(argv[2]) : 1.5e-3;
  double yield_for = argc > 3 ? atof(argv[3]) : 0.5e-3;
  int seconds = argc > 4 ? atoi(argv[4]) : 3;
  if (spinners < 0 || spinners > MAX_SPINNERS || work <= 0 || yield_for <= 0 || seconds <= 0) {
    fprintf(stderr, "usage: handover SPINNERS(0-%d) [WORK_S] [YIELD_S] [SECONDS]\n", MAX_SPINNERS);
    return 2;
  }
  struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) {
    perror("handover: mmap");
    return 2;
  }
  pid_t children[MAX_SPINNERS + 2];
  int n = 0;
  if ((children[n++] = fork()) == 0) {
    pin(1);
    while (!sh->stop) {
      double set = sh->set_at;
      if (set > 0) {
        int i = sh->count++;
        if (i < MAX_SAMPLES) sh->latency[i] = now() - set;
        sh->set_at = 0;
      }
      sched_yield();
    }
    _exit(0);
  }
  for (int i = 0; i < spinners; i++) {
    if ((children[n++] = fork()) == 0) {
      pin(1);
      volatile double x = 1;
      while (!sh->stop) x = x * 1.0000001 + 1e-9;
      _exit(0);
    }
  }
  if ((children[n++] = fork()) == 0) {
    pin(1);
    while (!sh->stop) {
      spin_until(work);
      sh->set_at = now();
      double start = now();
      while (now() - start < yield_for) sched_yield();
    }
    _exit(0);
  }
  sleep((unsigned)seconds);
  sh->stop = 1;
  for (int i = 0; i < n; i++) waitpid(children[i], NULL, 0);
  int count = sh->count < MAX_SAMPLES ? sh->count : MAX_SAMPLES;
  if (count == 0) {
    fprintf(stderr, "handover: the poller saw no flag\n");
    return 1;
  }
  qsort(sh->latency, (size_t)count, sizeof(double), by_value);
  int over = 0;
  double sum = 0;
  for (int i = 0; i < count; i++) {
    if (sh->latency[i] > 100e-6) over++;
    sum += sh->latency[i];
  }
  printf("spinners %d work %.2f ms yield %.2f ms: n %d median %.1f us p70 %.1f us p90 %.1f us; over 100 us %.0f%%; mean %.0f us\n", spinners,
         work * 1e3, yield_for * 1e3, count, sh->latency[count / 2] * 1e6, sh->latency[count * 7 / 10] * 1e6, sh->latency[count * 9 / 10] * 1e6,
         100.0 * over / count, sum / count * 1e6);
  return 0;
}
