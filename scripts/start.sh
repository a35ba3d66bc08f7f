#!/usr/bin/env bash
# npm start: installs the test tools when missing (scripts/setup-tools.sh), builds the extension and
# serves samples/ in code-server on http://127.0.0.1:$PORT (default 8090) with the extension
# installed, until Ctrl-C. After a rebuild, reload the browser window to pick the new build up.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
bash scripts/setup-tools.sh
. scripts/tools-env.sh
[[ -d node_modules ]] || npm ci --no-audit --no-fund
npm run build
exec node out/test/vscode/codeServer.js "$repo_root/samples"
