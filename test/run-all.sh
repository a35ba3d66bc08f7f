#!/usr/bin/env bash
# `npm test`: installs what the tests need, builds, and runs every suite on a fresh machine:
#   unit (node:test: importers, causal math, fuzzing, COZ-viewer cross-check, CLI),
#   lsp (the server over stdio with vscode-languageclient's protocol library),
#   exthost (mocha inside a real VS Code extension host: code-server 1.139 + Debian chromium),
#   e2e (playwright-core clicking through a real VS Code workbench).
# Ends with one line "N passed, N failed" over all suites.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results

bash scripts/setup-tools.sh || { echo "setup-tools failed"; exit 1; }
. scripts/tools-env.sh
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund || { echo "npm ci failed"; exit 1; }
fi
npm run build || { echo "build failed"; exit 1; }
bash scripts/build-mpi.sh || { echo "build-mpi failed"; exit 1; }

passed=0
failed=0
suites_failed=()

# node_suite NAME FILES...: runs node:test files, adding their TAP totals.
node_suite() {
  local name=$1
  shift
  local tap="test-results/$name.tap"
  node --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  local rc=$?
  local p f
  p=$(grep -E '^# pass ' "$tap" | tail -1 | awk '{print $3}')
  f=$(grep -E '^# fail ' "$tap" | tail -1 | awk '{print $3}')
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if ((rc != 0)); then
    suites_failed+=("$name")
    ((${f:-0} > 0)) || failed=$((failed + 1))
  fi
}

node_suite unit out/test/unit/*.test.js
node_suite lsp out/test/lsp/*.test.js

# The extension-host suite writes into its workspace (the file-watcher test): give it a copy.
exthost_workspace=$(mktemp -d)/samples
cp -r samples "$exthost_workspace"
exthost_log=test-results/exthost.log
node out/test/vscode/runExtensionHostTests.js "$exthost_workspace" 2>&1 | tee "$exthost_log"
exthost_rc=${PIPESTATUS[0]}
totals=$(grep -Eo 'exthost: [0-9]+ passed, [0-9]+ failed' "$exthost_log" | tail -1)
if [[ -n $totals ]]; then
  passed=$((passed + $(awk '{print $2}' <<<"$totals")))
  failed=$((failed + $(awk '{print $4}' <<<"$totals")))
fi
if ((exthost_rc != 0)); then
  suites_failed+=(exthost)
  [[ -n $totals && $(awk '{print $4}' <<<"$totals") -gt 0 ]] || failed=$((failed + 1))
fi

rm -rf "$(dirname "$exthost_workspace")"

node_suite e2e out/test/e2e/*.test.js

echo
if ((${#suites_failed[@]} > 0)); then echo "failing suites: ${suites_failed[*]}"; fi
echo "$passed passed, $failed failed"
((failed == 0 && ${#suites_failed[@]} == 0))
