#!/usr/bin/env bash
# The model's top 10 and the optimum of the stencil r3 256x256x256 (small_grid_configs.txt, from its flushed
# recording), each timed warm and flushed, alternating, twice: whether the flush moves the short-z-chunk
# configurations the model prefers against the optimum on one GPU (issue 18, item 3; bench/results/model/).
#   BIN=.carry/gpu/bin ROUNDS=2 bash bench/experiments/small_grid_l2.sh > log
for round in $(seq 1 "${ROUNDS:-2}"); do
  while read -r config; do
    for mode in --warm-l2 --flush-l2; do
      echo "round $round $mode $($BIN/blocktune measure stencil3d_r3 -p 256x256x256 -c "$config" $mode 2>&1 | tail -1)"
    done
  done < "$(dirname "$0")/small_grid_configs.txt"
done
