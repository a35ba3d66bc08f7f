#!/bin/sh
# Records the OTF2 archives in samples/mpi/traces/ with the project's recorder on this machine,
# for readers of the recorder's OTF2 (the PEM importer) to test against; program-output.txt
# beside each holds the program's own counts ("counts rank=…"). Needs `npx tsc -p .` first.
#   halo-4          halo on 4 ranks pinned as 2 emulated nodes of one core (the validation's
#                   4/2, 37-45 ms: the what-if panel's sample; unpinned, this VM's scheduler
#                   made the same run 36 or 52-59 ms) with a small flush threshold: BufferFlush
#                   records with Z, clock offsets per suspension, an MPI_Comm_split communicator
#   master_worker-3 ANY_SOURCE receives resolved to their senders, marked causal_lens:wildcards
#                   (pinned to one core: unpinned, the waiting master spins on a core of its own)
#   pipeline-3      Isend/Irecv completed by Test, Waitany and Waitsome
#   ring-abort-4    a rank calls MPI_Abort: the archive up to the last flush, marked truncated
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
"$root/scripts/build-mpi.sh"
build=${CAUSAL_LENS_MPI_BUILD:-$root/build/mpi}
trace() {
  name=$1; shift
  # A fresh directory: the recorder takes no other's, and nothing of an earlier trace stays.
  rm -rf "$here/traces/$name"
  mkdir -p "$here/traces/$name"
  node "$root/out/server/src/cli/main.js" trace --out "$here/traces/$name" "$@" >/dev/null 2>"$here/traces/$name.log" || true
  grep -E '^(counts|elapsed|results) ' "$here/traces/$name.log" >"$here/traces/$name/program-output.txt" || true
  rm -f "$here/traces/$name.log"
  rm -rf "$here/traces/$name/spool"
  echo "make-traces: $here/traces/$name"
}
trace halo-4 --np 4 --flush-threshold 40000 -- "$root/validation/pem/pin-rank.sh" 2 "$build/halo" 40000 300
trace master_worker-3 --np 3 -- "$root/validation/pem/pin-rank.sh" 1 "$build/master_worker" 30
trace pipeline-3 --np 3 -- "$build/pipeline" 20 128
trace ring-abort-4 --np 4 --flush-threshold 20000 -- "$build/ring" 300 --abort-after 200
