/* Do processes that poll with sched_yield (a rank waiting in Open MPI with mpi_yield_when_idle)
 * take CPU from processes computing on the same core? docs/pem.md ("a lead on the N/2
 * shortfalls") has what this measured.
 *
 *   gcc -O2 -o /tmp/poller-steal validation/pem/poller-steal.c && /tmp/poller-steal POLLERS [WORK] [COMPUTERS] [SPIN]
 *
 * On CPU 0: POLLERS processes that yield, each after SPIN iterations of work (0: only yield;
 * the pipeline sample's spin_work(2) between its MPI_Test calls is 2000), and COMPUTERS processes
 * that each compute WORK iterations (1e8: about 0.27 s here). Prints the wall time until the
 * computing ones are done. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_PROCESSES = 16 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int pollers = argc > 1 ? atoi(argv[1]) : 1;
  long work = argc > 2 ? atol(argv[2]) : 100000000;
  int computers = argc > 3 ? atoi(argv[3]) : 1;
  long spin = argc > 4 ? atol(argv[4]) : 0;
  if (pollers < 0 || pollers > MAX_PROCESSES || computers < 1 || computers > MAX_PROCESSES || spin < 0) {
    fprintf(stderr, "poller-steal: 0-%d pollers and 1-%d computing processes\n", MAX_PROCESSES, MAX_PROCESSES);
    return 2;
  }
  cpu_set_t cpu0;
  CPU_ZERO(&cpu0);
  CPU_SET(0, &cpu0);
  if (sched_setaffinity(0, sizeof cpu0, &cpu0) != 0) {
    perror("poller-steal: sched_setaffinity");
    return 2;
  }
  pid_t polling[MAX_PROCESSES], computing[MAX_PROCESSES];
  for (int i = 0; i < pollers; i++) {
    if ((polling[i] = fork()) == 0) {
      volatile double y = 1.0;
      for (;;) {
        for (long k = 0; k < spin; k++) y = y * 1.0000001 + 1e-9;
        sched_yield();
      }
    }
  }
  double start = now();
  for (int i = 0; i < computers; i++) {
    if ((computing[i] = fork()) == 0) {
      volatile double x = 1.0;
      for (long k = 0; k < work; k++) x = x * 1.0000001 + 1e-9;
      _exit(0);
    }
  }
  for (int i = 0; i < computers; i++) waitpid(computing[i], NULL, 0);
  double seconds = now() - start;
  for (int i = 0; i < pollers; i++) kill(polling[i], SIGKILL);
  while (wait(NULL) > 0) {
  }
  printf("pollers %d spin %ld computing %d seconds %.4f\n", pollers, spin, computers, seconds);
  return 0;
}
