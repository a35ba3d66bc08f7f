/* How much of a spinning thread's time does this machine take away (a "selfish detour" probe:
 * Beckman et al., "Benchmarking the effects of operating system interference on extreme-scale
 * parallel machines", 2008)? docs/pem.md ("a fine-grained halo") has what this measured.
 *
 *   gcc -O2 -o /tmp/detours validation/pem/detours.c
 *   taskset -c 0 /tmp/detours 1 & taskset -c 1 /tmp/detours 1; wait
 *
 * Spins for SECONDS (default 1) reading the time-stamp counter and counts every gap of a
 * microsecond or more between two reads. Prints the gaps per second, the share of the time they
 * took, and the wait a message arriving at a random moment would add on average, Σd²/2T, with
 * each gap capped at 100 µs (the rare longer ones are other processes, which the CPU clock does
 * not count, and they dominate an uncapped sum). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1;
  if (!(seconds > 0)) {
    fprintf(stderr, "usage: detours [SECONDS]\n");
    return 2;
  }
  /* The counter's rate, against the monotonic clock over 0.2 s. */
  double ns0 = monotonic_ns();
  unsigned long long tsc0 = __rdtsc();
  while (monotonic_ns() - ns0 < 2e8) {
  }
  double ticks_per_ns = (double)(__rdtsc() - tsc0) / (monotonic_ns() - ns0);
  unsigned long long threshold = (unsigned long long)(1000 * ticks_per_ns);
  unsigned long long start = __rdtsc(), last = start, end = start + (unsigned long long)(seconds * 1e9 * ticks_per_ns);
  double lost_ns = 0, squares = 0;
  long gaps = 0;
  while (last < end) {
    unsigned long long now = __rdtsc();
    if (now - last > threshold) {
      double gap = (double)(now - last) / ticks_per_ns;
      lost_ns += gap;
      if (gap > 1e5) gap = 1e5;
      squares += gap * gap;
      gaps++;
    }
    last = now;
  }
  double total_ns = seconds * 1e9;
  printf("gaps >= 1 us: %.0f per second, %.2f%% of the time; mean wait added at a random moment %.3f us\n", gaps / seconds,
         100 * lost_ns / total_ns, squares / (2 * total_ns) / 1000);
  return 0;
}
