#!/usr/bin/env bash
# STREAM codings side by side (issue 19): each build's best launch per fusion
# depth at radius 1 and 2 over its STREAM space (fused_steps 2-4) against RING's
# best single step, one build after the other in one call. Each build measures
# through its own worker (BLOCKTUNE_WORKER is unset: the worker beside the CLI).
#   OUT=/tmp/out bash bench/experiments/stream_builds.sh .carry/v2 .carry/v1 .carry/old
source "$(dirname "$0")/../gpu/common.sh"
unset BLOCKTUNE_WORKER BLOCKTUNE_CLI
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
where='strategy == "STREAM" && fused_steps >= 2 && fused_steps <= 4 || strategy == "RING"'
for bin in "$@"; do
  name=$(basename "$bin")
  for r in 1 2; do
    step "$name: best STREAM launch per depth, radius $r" "BLOCKTUNE_CACHE_DIR=/tmp/cache-$name '$bin/blocktune' bench stencil -r $r -n 512 --time-steps 100 --where '$where' --db $OUT/$name-r$r.db --csv $OUT/$name-per-step.csv 2> $OUT/$name-bench-r$r.err"
    gzip -f $OUT/$name-r$r.db
  done
done
