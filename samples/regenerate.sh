#!/usr/bin/env bash
# Rebuild the sample programs and regenerate their committed COZ profiles
# (<program>/profile.coz) with the real COZ profiler.
#
# Usage: samples/regenerate.sh [pipeline] [workers]      (default: both)
#
# Tunables (environment variables):
#   PIPELINE_RUNS, WORKERS_RUNS  number of `coz run`s appended per profile (default 3)
#   QUIET_WAIT       max seconds to wait for an idle machine before each run (default 120, 0 = never wait)
#   MAX_FOREIGN_CPU  if other processes used more than this % of one CPU during a run,
#                    the run is discarded and retried (default 20)
#   MAX_ATTEMPTS     attempts per run before a noisy run is kept anyway (default 3)
#
# Not run in CI: the profiles are committed. Expect 5-10 minutes on an idle 2-core machine.
set -euo pipefail

SAMPLES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# --- per-program configuration (argv of the profiled program) ---------------
PIPELINE_RUNS=${PIPELINE_RUNS:-3}
PIPELINE_ARGS=(24000 1800000 900000)   # items, stage-A work, stage-B work
WORKERS_RUNS=${WORKERS_RUNS:-3}
WORKERS_ARGS=(9000 5000000 2500000)    # rounds, long-task work, short-task work

QUIET_WAIT=${QUIET_WAIT:-120}
MAX_FOREIGN_CPU=${MAX_FOREIGN_CPU:-20}
MAX_ATTEMPTS=${MAX_ATTEMPTS:-3}

die() { echo "regenerate.sh: $*" >&2; exit 1; }

# --- prerequisites ------------------------------------------------------------
if ! command -v coz >/dev/null 2>&1; then
  die "coz is not installed. On Debian/Ubuntu: sudo apt-get install coz-profiler"
fi
[[ -f /usr/include/coz.h ]] || die "coz.h not found (/usr/include/coz.h); install it with: sudo apt-get install coz-profiler"
command -v gcc >/dev/null 2>&1 || die "gcc is not installed (sudo apt-get install build-essential)"
command -v make >/dev/null 2>&1 || die "make is not installed (sudo apt-get install make)"

programs=("$@")
(( ${#programs[@]} )) || programs=(pipeline workers)
for p in "${programs[@]}"; do
  [[ $p == pipeline || $p == workers ]] || die "unknown program '$p' (expected: pipeline, workers)"
done

coz_version="unknown"
if command -v dpkg-query >/dev/null 2>&1; then
  coz_version=$(dpkg-query -W -f='${Version}' coz-profiler 2>/dev/null || echo unknown)
fi
echo "coz: $(command -v coz) (coz-profiler $coz_version), $(nproc) CPUs"

# --- CPU accounting helpers ---------------------------------------------------
# Busy and total time of all CPUs since boot, in clock ticks.
cpu_ticks() {
  local _cpu user nice system idle iowait irq softirq steal _rest
  read -r _cpu user nice system idle iowait irq softirq steal _rest < /proc/stat
  echo "$((user + nice + system + irq + softirq + steal)) $((user + nice + system + idle + iowait + irq + softirq + steal))"
}

# Sets CHILDREN_MS to the CPU time (user+sys, ms) of this shell's finished children.
# Must not run in a subshell: `times` there would only see the subshell's children.
children_cpu_ms() {
  local f="$1" line u s
  times > "$f"
  line=$(tail -n 1 "$f")     # e.g. "0m1.234s 0m0.056s"
  u=${line%% *}; s=${line##* }
  CHILDREN_MS=$(( $(to_ms "$u") + $(to_ms "$s") ))
}
to_ms() { # "1m2.345s" -> 62345
  local v="${1%s}" m sec
  m=${v%%m*}; sec=${v#*m}
  awk -v m="$m" -v s="$sec" 'BEGIN { printf "%d", (m * 60 + s) * 1000 }'
}

# Wait (at most QUIET_WAIT s) until the machine is idle for two 2-second samples.
wait_for_quiet() {
  (( QUIET_WAIT > 0 )) || return 0
  local start=$SECONDS quiet=0 b1 t1 b2 t2 pct=0
  while (( SECONDS - start < QUIET_WAIT )); do
    read -r b1 t1 < <(cpu_ticks); sleep 2; read -r b2 t2 < <(cpu_ticks)
    pct=$(( 100 * (b2 - b1) * $(nproc) / (t2 - t1 + 1) ))   # % of one CPU
    if (( pct < MAX_FOREIGN_CPU )); then
      quiet=$((quiet + 1)); (( quiet >= 2 )) && return 0
    else
      quiet=0
    fi
  done
  echo "    warning: machine still busy after ${QUIET_WAIT}s (other processes use ~${pct}% of a CPU); running anyway"
}

# --- build --------------------------------------------------------------------
echo "== build"
make -C "$SAMPLES_DIR" "${programs[@]}"

# --- profile ------------------------------------------------------------------
declare -A walltimes
profile_program() {
  local name=$1 runs=$2; shift 2
  local args=("$@")
  local dir="$SAMPLES_DIR/$name"
  local out="$dir/profile.coz" tmp="$dir/build/run.coz" log="$dir/build/coz.log"
  local timesf="$dir/build/times.txt"
  local r attempt b1 t1 b2 t2 c1 c2 start_ns end_ns wall_ms foreign_pct exps
  local walls=()

  echo "== $name: $runs x coz run --- ./build/$name ${args[*]}"
  rm -f "$out"
  for (( r = 1; r <= runs; r++ )); do
    for (( attempt = 1; ; attempt++ )); do
      wait_for_quiet
      rm -f "$tmp"
      children_cpu_ms "$timesf"; c1=$CHILDREN_MS; read -r b1 t1 < <(cpu_ticks); start_ns=$(date +%s%N)
      ( cd "$dir" && coz run -o "$tmp" --- "./build/$name" "${args[@]}" ) 2> "$log" | sed 's/^/    /'
      end_ns=$(date +%s%N); read -r b2 t2 < <(cpu_ticks); children_cpu_ms "$timesf"; c2=$CHILDREN_MS
      wall_ms=$(( (end_ns - start_ns) / 1000000 ))
      # CPU used by everything else during the run, in % of one CPU.
      local busy_ms=$(( (b2 - b1) * 1000 / $(getconf CLK_TCK) ))
      foreign_pct=$(( (busy_ms - (c2 - c1)) * 100 / (wall_ms + 1) ))
      (( foreign_pct < 0 )) && foreign_pct=0
      exps=$(grep -c '^experiment' "$tmp" || true)
      (( exps > 0 )) || die "$name: COZ wrote no experiments (see $log). Built with -gdwarf-4 -gno-variable-location-views?"
      printf '    run %d/%d: %d.%01d s wall, %d experiments, other processes ~%d%% of a CPU\n' \
        "$r" "$runs" $((wall_ms / 1000)) $((wall_ms % 1000 / 100)) "$exps" "$foreign_pct"
      if (( foreign_pct > MAX_FOREIGN_CPU && attempt < MAX_ATTEMPTS )); then
        echo "    -> discarded (machine too busy for a clean causal profile), retrying"
        continue
      fi
      (( foreign_pct > MAX_FOREIGN_CPU )) && echo "    -> kept anyway after $attempt attempts (profile may be noisy)"
      cat "$tmp" >> "$out"
      walls+=("$((wall_ms / 1000)).$((wall_ms % 1000 / 100))")
      break
    done
  done
  rm -f "$tmp" "$timesf"
  walltimes[$name]="${walls[*]}"
}

t_start=$SECONDS
for p in "${programs[@]}"; do
  case $p in
    pipeline) profile_program pipeline "$PIPELINE_RUNS" "${PIPELINE_ARGS[@]}" ;;
    workers)  profile_program workers "$WORKERS_RUNS" "${WORKERS_ARGS[@]}" ;;
  esac
done

# --- summary ------------------------------------------------------------------
echo "== summary (total $((SECONDS - t_start)) s)"
for p in "${programs[@]}"; do
  out="$SAMPLES_DIR/$p/profile.coz"
  echo "$p/profile.coz: $(wc -c < "$out") bytes, run wall times (s): ${walltimes[$p]}"
  awk -F'\t' '
    $1 == "startup"    { runs++ }
    $1 == "experiment" { n++; sub(/^selected=/, "", $2); sel[$2]++ }
    $1 == "throughput-point" || $1 == "latency-point" { sub(/^name=/, "", $2); pts[$1 " " $2] = 1 }
    END {
      printf "  %d runs, %d experiments\n", runs, n
      for (k in pts) printf "  point: %s\n", k
      for (s in sel) printf "  %5d experiments  %s\n", sel[s], s | "sort -rn | head -n 5"
    }' "$out"
done
