#!/usr/bin/env bash
# `npm run bench`: builds, generates the 100 MB COZ profile (bench/data/large.coz) if it is
# missing or older than its generator, runs the benches (COZ ingestion, LSP latency, the
# DWARF symbolizer, perf ingestion against perf report, the MPI recorder's overhead, PEM's
# event rate and memory, the scaling fits, activation), and ends with a Markdown table of the
# figures, with the machine, for the README.
# Benches measure and print figures; they assert nothing.
#   BENCH_MB=N     generate an N MiB profile instead (always regenerates)
#   BENCH_RUNS=N   fresh VS Code windows per activation workspace (default 5)
set -uo pipefail
cd "$(dirname "$0")/.."

fail() { echo "bench: $*" >&2; exit 1; }

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund >/dev/null || fail "npm ci failed"
fi
node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs || fail "build failed"

profile=bench/data/large.coz
mkdir -p bench/data
if [[ -n ${BENCH_MB:-} || ! -f $profile || bench/generate-profile.ts -nt $profile ]]; then
  node out/bench/generate-profile.js --mb "${BENCH_MB:-100}" --out "$profile" || fail "generating the profile failed"
fi

export BENCH_RESULTS=bench/data/results.jsonl
: >"$BENCH_RESULTS"
echo "load average before the benches: $(cut -d' ' -f1-3 /proc/loadavg)"
node --expose-gc out/bench/ingest.js --file "$profile" || echo "bench: ingest failed" >&2
node out/bench/lsp-latency.js --file "$profile" || echo "bench: lsp-latency failed" >&2
node out/bench/symbolize.js --dwarf 5 || echo "bench: symbolize (DWARF 5) failed" >&2
node out/bench/symbolize.js --dwarf 4 || echo "bench: symbolize (DWARF 4) failed" >&2
node out/bench/perf-ingest.js --dwarf 4 || echo "bench: perf-ingest failed" >&2
node out/bench/fit.js || echo "bench: fit failed" >&2
if bash scripts/build-mpi.sh; then
  node out/bench/recorder.js --reps 5 || echo "bench: recorder failed" >&2
  node out/bench/pem.js --ops 1e6 --ops 1e7 || echo "bench: pem failed" >&2
  node out/bench/pem.js --record 1e7 --placements 1,2,4,8 || echo "bench: pem (placements together) failed" >&2
  node out/bench/pem.js --workers 16 --workers 4096 --synth 1024 --synth-workers 8 --synth-workers 1024 --synth-events 2000000 || echo "bench: pem (many ranks) failed" >&2
else
  echo "bench: build-mpi failed; the recorder is not measured" >&2
fi

# The activation bench runs VS Code (code-server + chromium) like the extension-host tests.
if setup_log=$(bash scripts/setup-tools.sh 2>&1); then
  . scripts/tools-env.sh
  node out/bench/activation.js --runs "${BENCH_RUNS:-5}" || echo "bench: activation failed" >&2
else
  echo "$setup_log" >&2
  echo "bench: setup-tools failed; activation not measured" >&2
fi

echo
node out/bench/report.js "$BENCH_RESULTS"
