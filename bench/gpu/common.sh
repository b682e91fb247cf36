# Sourced by the GPU machine scripts: where the binaries are (BIN), where the
# output goes (OUT), a variant cache of the run's own, and `step TITLE COMMAND`
# which prints the title and command, runs it and prints its exit status (the
# first failing command's in a pipe: `tune ... | tail` reports tune's).
set -uo pipefail
BIN=${BIN:-build/cli}
OUT=${OUT:-/tmp/blocktune-out}
mkdir -p "$OUT"
export BLOCKTUNE_CACHE_DIR=/tmp/blocktune-cache
step() { printf '\n== %s\n$ %s\n' "$1" "$2"; bash -o pipefail -c "$2"; echo "(exit $?)"; }
