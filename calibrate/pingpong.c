/* Calibration ping-pong: ranks 0 and 1 bounce a message of each size (0 B, then powers of two
 * to MAX_BYTES) and rank 0 prints the median half round-trip per size, one line each:
 *   size <bytes> <round trips> <median one-way seconds> <min one-way seconds>
 * Round trips per size: until they took TARGET seconds, at least 5, at most 1000, after three
 * warm-up round trips, and before them "first <one-way seconds>" for the very first round trip, which
 * opens the connection. Other ranks, if any, only wait. causal-lens calibrate turns the lines into the
 * communication-time table (server/src/network/commTable.ts).
 * With "relay", every rank pairs up (0-1, 2-3, ...) and all pairs bounce a 0-byte message
 * ROUND_TRIPS times at once; rank 0 prints its pair's time per round trip over the number of ranks:
 *   relay <ranks> <seconds per turn>
 * With all ranks on one core each round trip is one turn of every rank, each relaying a message
 * (the sharedCore points' other ranks only poll).
 * With "tick", rank 0 reads the coarse monotonic clock, which the kernel advances once per
 * scheduler tick (jiffy), until it has seen STEPS steps, and prints their median:
 *   tick <seconds>
 * (A ping-pong against a thread spinning beside the receiver measured it before: under EEVDF
 * about half its round trips took a tick and half 10 us, the yielding receiver getting its core
 * straight back, so its median was 10 us in 5 to 7 runs of 12-20 on 2026-11-26.)
 * With "slice", rank 0 runs on CPU 0 beside a thread that only yields there (as a rank waiting in
 * MPI does) and, SAMPLES times, sleeps a random 0-8 ms, then computes until that thread runs again:
 * woken at a random moment, it keeps the core for the scheduler's slice and loses it at the tick
 * after, so the mean time is the slice plus half a tick; rank 0 prints the times' mean and count:
 *   slice <mean seconds> <samples>
 * usage: pingpong [TARGET_SECONDS=0.05] [MAX_BYTES=16777216]
 *        pingpong relay [ROUND_TRIPS=20000]
 *        pingpong tick [STEPS=20]
 *        pingpong slice [SAMPLES=200] */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MIN_ROUND_TRIPS = 5, MAX_ROUND_TRIPS = 1000 };

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { TAG_MORE = 0, TAG_LAST = 1 };

/* One round trip; rank 0's tag tells rank 1 whether another one follows, so rank 0 alone decides
 * how many round trips a size gets. Returns 1 when rank 1 got the last one.
 * Each rank sends from one buffer and receives into another, as programs do (and as the OSU
 * latency benchmark does): bouncing one buffer makes every copy between two cores write lines the
 * other core holds, which measured 300 µs one-way for 512 KiB here against 48 µs with two
 * buffers, and 47 µs for the pipeline program's real receive copies. */
static int round_trip(int rank, char *send, char *recv, int bytes, int last, double *seconds) {
  double t0 = MPI_Wtime();
  MPI_Status st;
  if (rank == 0) {
    MPI_Send(send, bytes, MPI_BYTE, 1, last ? TAG_LAST : TAG_MORE, MPI_COMM_WORLD);
    MPI_Recv(recv, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(recv, bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Send(send, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    last = st.MPI_TAG == TAG_LAST;
  }
  *seconds = MPI_Wtime() - t0;
  return last;
}

enum { RELAY_WARM_UP = 100 };

static void relay(int rank, int size, long round_trips) {
  if (size % 2) {
    if (rank == 0) fprintf(stderr, "pingpong relay: needs an even number of ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int partner = rank ^ 1;
  char ball = 0;
  double t0 = 0;
  for (long i = -RELAY_WARM_UP; i < round_trips; i++) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    if (rank % 2 == 0) {
      MPI_Send(&ball, 0, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
      MPI_Recv(&ball, 0, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&ball, 0, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&ball, 0, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
    }
  }
  double seconds = MPI_Wtime() - t0;
  if (rank == 0) printf("relay %d %.9e\n", size, seconds / (double)round_trips / size);
}

static double coarse_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void tick(long steps) {
  double *times = malloc(sizeof(double) * (size_t)steps);
  struct timespec fine;
  clock_gettime(CLOCK_MONOTONIC, &fine);
  /* Steps not all seen within 2 to 3 s: the coarse clock is not ticking, and no line is printed
   * (the caller's error says so). */
  const time_t give_up = fine.tv_sec + 2;
  double last = coarse_now();
  long n = -1; /* the first change only aligns the start with a tick */
  while (n < steps && fine.tv_sec <= give_up) {
    double now = coarse_now();
    if (now != last) {
      if (n >= 0) times[n] = now - last;
      n++;
      last = now;
    }
    clock_gettime(CLOCK_MONOTONIC, &fine);
  }
  if (n == steps) {
    qsort(times, (size_t)n, sizeof(double), by_value);
    printf("tick %.9e\n", times[n / 2]);
  }
  free(times);
}

static volatile long yields = 0;
static volatile int yielding = 1;

static void *yield_only(void *unused) {
  (void)unused;
  while (yielding) {
    yields++;
    sched_yield();
  }
  return NULL;
}

static void slice(long samples) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(0, &cpus);
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
    fprintf(stderr, "pingpong slice: cannot run on CPU 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  pthread_t poller;
  if (pthread_create(&poller, NULL, yield_only, NULL) != 0) {
    fprintf(stderr, "pingpong slice: cannot start the yielding thread\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned long long seed = 88172645463325252ULL;
  double sum = 0;
  long n = 0;
  for (long i = 0; i < samples; i++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    struct timespec pause = { 0, (long)(seed % 8000000ULL) };
    nanosleep(&pause, NULL);
    double start = MPI_Wtime(), now = start;
    long seen = yields;
    /* A slice that outlasts 50 ms means no tick took the core: not a sample. */
    while (yields == seen && (now = MPI_Wtime()) - start < 0.05) {
    }
    if (yields != seen) sum += now - start, n++;
  }
  yielding = 0;
  pthread_join(poller, NULL);
  printf("slice %.9e %ld\n", n > 0 ? sum / n : 0.0, n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "tick") == 0) {
    if (rank == 0) tick(argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 20);
    MPI_Finalize();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "slice") == 0) {
    if (rank == 0) slice(argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 200);
    MPI_Finalize();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "relay") == 0) {
    long round_trips = argc > 2 ? atol(argv[2]) : 20000;
    relay(rank, size, round_trips > 0 ? round_trips : 20000);
    MPI_Finalize();
    return 0;
  }
  double target = argc > 1 ? atof(argv[1]) : 0.05;
  long max_bytes = argc > 2 ? atol(argv[2]) : 16L << 20;
  if (size < 2) {
    fprintf(stderr, "pingpong: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *send = malloc((size_t)max_bytes + 1), *recv = malloc((size_t)max_bytes + 1);
  memset(send, 1, (size_t)max_bytes + 1);
  memset(recv, 2, (size_t)max_bytes + 1);
  double *times = malloc(sizeof(double) * MAX_ROUND_TRIPS);
  for (long bytes = 0; bytes <= max_bytes; bytes = bytes ? bytes * 2 : 1) {
    double t;
    /* warm-up: the first round trips of a size pay for page faults and protocol set-up */
    for (int warm = 0; warm < 3; warm++) {
      round_trip(rank, send, recv, (int)bytes, 0, &t);
      /* The very first message also opens the connection (Open MPI's TCP BTL connects lazily). */
      if (rank == 0 && bytes == 0 && warm == 0) printf("first %.9e\n", t / 2);
    }
    int n = 0;
    if (rank == 0) {
      double spent = 0;
      while (n < MAX_ROUND_TRIPS) {
        int last = n + 1 >= MIN_ROUND_TRIPS && (spent >= target || n + 1 == MAX_ROUND_TRIPS);
        round_trip(rank, send, recv, (int)bytes, last, &t);
        times[n++] = t / 2;
        spent += t;
        if (last) break;
      }
      qsort(times, (size_t)n, sizeof(double), by_value);
      double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
      printf("size %ld %d %.9e %.9e\n", bytes, n, median, times[0]);
      fflush(stdout);
    } else if (rank == 1) {
      while (!round_trip(rank, send, recv, (int)bytes, 0, &t)) {
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(send);
  free(recv);
  free(times);
  MPI_Finalize();
  return 0;
}
