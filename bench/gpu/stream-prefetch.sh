#!/usr/bin/env bash
# STREAM (temporal blocking) with its input planes prefetched by cp.async
# (issue 19): for radius 1 and 2, tune every STREAM configuration (fused_steps
# 1 to 6) and every RING one (the best single step on the H200) at 512^3 for
# 100 time steps, then re-time the best of each coding and fusion depth against
# the same-run copy. Every fused configuration is checked against the host
# reference of as many steps as it fuses while it is tuned.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/stream-prefetch.sh "1 2"
source "$(dirname "$0")/common.sh"
radii=${1:-"1 2"}
where='strategy == "STREAM" || strategy == "RING"'
for r in $radii; do
  step "radius $r" "'$BIN/blocktune' bench stencil -r $r -n 512 --time-steps 100 --where '$where' --db $OUT/stream-r$r.db --csv $OUT/per-step.csv"
  gzip -f "$OUT/stream-r$r.db"
done
