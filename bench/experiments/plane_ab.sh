#!/usr/bin/env bash
# Two PLANE builds side by side (issue 19): each build's best PLANE launch at
# each radius:fused-steps pair of $CASES (default 2:2) against RING's best
# single step at z chunks of 8, in one call, two rounds in turn, each build
# through its own worker.
#   CASES="2:2 1:3" OUT=/tmp/out bash bench/experiments/plane_ab.sh .carry/v3 .carry/v4
source "$(dirname "$0")/../gpu/common.sh"
unset BLOCKTUNE_WORKER BLOCKTUNE_CLI
for round in 1 2; do
  for bin in "$@"; do
    name=$(basename "$bin")
    for case in ${CASES:-2:2}; do
      r=${case%:*} k=${case#*:}
      where="strategy == \"PLANE\" && fused_steps == $k || strategy == \"RING\" && z_chunk == 8 && block_x == 32"
      step "$name round $round: radius $r, PLANE $k steps" "BLOCKTUNE_CACHE_DIR=/tmp/cache-$name '$bin/blocktune' bench stencil -r $r -n 512 --time-steps 100 --where '$where' --db $OUT/$name-round$round-r$r.db --csv $OUT/$name-per-step.csv 2> /dev/null | grep -E 'copy in|PLANE|RING|temporal'"
    done
  done
done
