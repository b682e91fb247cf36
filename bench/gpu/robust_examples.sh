#!/usr/bin/env bash
# Issues 7 and 8 on the GPU machine, in one call: the GPU tests (fault
# injection among them), a fault-injection tune through the CLI, Ctrl-C and
# resume, and the example tuning specs tuned on the GPU.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/robust_examples.sh
set -uo pipefail
BIN=${BIN:-build/cli}
OUT=${OUT:-/tmp/blocktune-out}
mkdir -p "$OUT"
export BLOCKTUNE_CACHE_DIR=/tmp/blocktune-cache BLOCKTUNE_WORKER=$PWD/$BIN/blocktune-worker
# The test binaries name data by the build's source path.
mkdir -p /work && [ -e /work/main ] || ln -s "$PWD" /work/main
step() { printf '\n== %s\n$ %s\n' "$1" "$2"; bash -c "$2"; echo "(exit $?)"; }
{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version --format=csv
  step "GPU tests" "$BIN/test_gpu --durations yes"
  step "spec launcher GPU tests" "$BIN/test_launcher_gpu"
  step "fault injection through the CLI" "$BIN/blocktune tune faults --problem 4194304 --timeout-floor 3 --db $OUT/faults.db"
  step "Ctrl-C after 25 s" "timeout -s INT 25 $BIN/blocktune tune stencil3d_r3 --problem 256x256x256 --db /tmp/interrupted.db"
  step "the same command again resumes" "$BIN/blocktune tune stencil3d_r3 --problem 256x256x256 --db /tmp/interrupted.db | head -3"
  for example in "matmul 2048x2048x2048" "transpose 8192x8192" "reduction 67108864" "conv2d 8192x8192"; do
    set -- $example
    step "example spec $1" "$BIN/blocktune tune --spec examples/specs/$1/spec.json --problem $2 --db /tmp/examples.db"
  done
} 2>&1 | tee "$OUT/session.log"
gzip -c /tmp/examples.db > "$OUT/examples.db.gz"
