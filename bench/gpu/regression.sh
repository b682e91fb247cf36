#!/usr/bin/env bash
# After a change to the stencil kernel: the GPU tests, and radius 1 at 512^3
# over the codings that win there (BASE and CSL with vector loads at the
# default carveout, every shape and rows-per-thread count), against the
# same-run copy, to compare with the study's 95.8%.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/regression.sh
source "$(dirname "$0")/common.sh"
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version --format=csv"
  step "GPU tests" "$BIN/test_gpu --durations yes"
  step "launcher GPU tests" "$BIN/test_launcher_gpu"
  step "radius 1, 512^3" "$BIN/blocktune bench stencil --radius 1 --size 512 --db $OUT/regression.db \
    --where 'strategy != \"STREAM\" && strategy != \"COMP\" && vx >= 2 && carveout == -1'"
} 2>&1 | tee "$OUT/regression.log"
gzip -f "$OUT/regression.db"
