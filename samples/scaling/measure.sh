#!/usr/bin/env bash
# Measures the scaling kernels with valgrind's cachegrind and writes the run tables that
# test/unit/fit-accuracy.test.ts, bench/fit.ts and docs/scaling.md use (test/fixtures/scaling/ by default).
#
# Usage: samples/scaling/measure.sh [OUT_DIR]
#
# For each kernel, two series as in seed 003 (Lee, Yang, Park, tables 1 and 2):
#   <kernel>-N: input size N varies at a fixed P_FOR_N threads;
#   <kernel>-P: thread count P varies at a fixed N: 2, 4, 8, 16 fitted, 32 and 64 predicted,
#               as the paper's table 2 (P = 1 is another program: no thread pool at all).
# Each series gives <series>.csv (the small runs a model is fitted to) and <series>.large.csv
# (the two large runs it must predict). Rows: x, D1 misses (reads + writes) of one component,
# the component: each function of the kernel's own source, and "runtime" for everything else
# (libc, the dynamic loader, thread start-up). Cachegrind simulates an explicit cache (below),
# so the counts do not depend on the host's caches; ASLR is turned off (setarch -R) because the
# LL set index depends on address bits above the page offset. The sizes keep the fitted and the
# predicted runs in one cache regime (docs/scaling.md); KERNELS="fft sort" measures a subset.
#
# Not run by the tests: about 2 minutes here. Single-threaded runs give the same counts every
# time; with threads, valgrind's scheduler interleaves them a little differently from run to run
# (about ±0.1% of a kernel's misses here).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/../../test/fixtures/scaling}"
CACHE=(--I1=32768,8,64 --D1=32768,8,64 --LL=2097152,16,64)
P_FOR_N=4

# kernel: small N values (fitted) | large N values (predicted) | fixed N of the P series
declare -A N_SMALL N_LARGE N_FOR_P
N_SMALL[matmul]="96 120 144 168 192 216 240"; N_LARGE[matmul]="400 600"; N_FOR_P[matmul]=144
N_SMALL[stencil]="100 150 200 250 300 350 400"; N_LARGE[stencil]="600 800"; N_FOR_P[stencil]=400
N_SMALL[sort]="32768 65536 131072 262144 524288"; N_LARGE[sort]="1048576 2097152"; N_FOR_P[sort]=1048576
N_SMALL[fft]="16384 32768 65536 131072 262144"; N_LARGE[fft]="1048576 2097152"; N_FOR_P[fft]=262144
N_SMALL[histogram]="100000 200000 300000 400000 500000 600000 700000"; N_LARGE[histogram]="1500000 3000000"; N_FOR_P[histogram]=400000
N_SMALL[transpose]="600 700 800 900 1000 1100 1200"; N_LARGE[transpose]="2000 3000"; N_FOR_P[transpose]=512
P_SMALL="2 4 8 16"
P_LARGE="32 64"
KERNELS=(${KERNELS:-matmul stencil sort fft histogram transpose})

die() { echo "measure.sh: $*" >&2; exit 1; }
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
command -v gcc >/dev/null || die "gcc is not installed (apt-get install gcc)"
NO_ASLR=()
if setarch "$(uname -m)" -R true 2>/dev/null; then NO_ASLR=(setarch "$(uname -m)" -R); fi

BUILD="$(mktemp -d)"
trap 'rm -rf "$BUILD"' EXIT
mkdir -p "$OUT"

# run KERNEL N P: prints "component,misses" lines for one cachegrind run.
run() {
  local kernel=$1 n=$2 p=$3 profile="$BUILD/cachegrind.out"
  "${NO_ASLR[@]}" valgrind --tool=cachegrind --cache-sim=yes "${CACHE[@]}" \
    --cachegrind-out-file="$profile" "$BUILD/$kernel" "$n" "$p" >/dev/null 2>"$BUILD/valgrind.log" \
    || die "$kernel $n $p failed: $(tail -n 3 "$BUILD/valgrind.log")"
  # events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw; a count line is "<line> <events...>".
  awk -v src="$kernel.c" '
    /^fl=/ { own = ($0 ~ ("/" src "$") || $0 == "fl=" src) }
    /^fn=/ { fn = own ? substr($0, 4) : "runtime" }
    /^[0-9]/ { misses[fn] += $6 + $9 }
    END { for (f in misses) if (misses[f] > 0) printf "%s,%d\n", f, misses[f] }
  ' "$profile" | sort
}

# series FILE NAME VALUES FIXED...: one CSV of every component at every value.
series() {
  local file=$1 name=$2 values=$3 kernel=$4 fixed=$5 v
  echo "$name,d1_misses,component" > "$file"
  for v in $values; do
    if [[ $name == N ]]; then run "$kernel" "$v" "$fixed"; else run "$kernel" "$fixed" "$v"; fi |
      while IFS=, read -r component misses; do echo "$v,$misses,$component"; done >> "$file"
  done
}

start=$SECONDS
for kernel in "${KERNELS[@]}"; do
  gcc -g -O1 -fno-inline -pthread -o "$BUILD/$kernel" "$HERE/$kernel.c" -lm
  echo "== $kernel"
  series "$OUT/$kernel-N.csv" N "${N_SMALL[$kernel]}" "$kernel" "$P_FOR_N"
  series "$OUT/$kernel-N.large.csv" N "${N_LARGE[$kernel]}" "$kernel" "$P_FOR_N"
  series "$OUT/$kernel-P.csv" P "$P_SMALL" "$kernel" "${N_FOR_P[$kernel]}"
  series "$OUT/$kernel-P.large.csv" P "$P_LARGE" "$kernel" "${N_FOR_P[$kernel]}"
  echo "   $((SECONDS - start)) s so far"
done
