#!/bin/sh
# Builds the MPI parts with mpicc into build/mpi/ (or $CAUSAL_LENS_MPI_BUILD): the trace recorder
# (libcausal-lens-recorder.so, causal-lens-otf2), the calibration ping-pong and samples/mpi.
# Idempotent: make rebuilds only what changed. Exits 1 naming the Debian package when a tool is missing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${CAUSAL_LENS_MPI_BUILD:-$root/build/mpi}

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "build-mpi: $1 not found; install $2 (apt-get install $2)" >&2
    exit 1
  fi
}
need mpicc "openmpi-bin libopenmpi-dev"
need otf2-config "libotf2-trace-dev"
need make "make"
need flock "util-linux"

mkdir -p "$out"
# Test files run in parallel and each makes sure the build is there: one make at a time.
exec 9>"$out/.build-lock"
flock 9
make -s -C "$root/recorder" BUILD="$out"
make -s -C "$root/calibrate" BUILD="$out"
make -s -C "$root/samples/mpi" BUILD="$out"
echo "build-mpi: built into $out"
