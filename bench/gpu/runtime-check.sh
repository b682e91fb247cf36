#!/usr/bin/env bash
# After a change to the run-time query: the three GPU tests, and 100 and 7
# steps through TunedKernel::run_steps from the committed r1 time-steps
# database (7 was not tuned: its plan is composed from the launches measured),
# each checked against as many single steps.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/runtime-check.sh
source "$(dirname "$0")/common.sh"
gunzip -c bench/results/time-steps/prefetch/time-steps-r1.db.gz > /tmp/time-steps-r1.db
# test_gpu runs the CLI and the worker from the build tree's paths compiled into
# it unless the environment names others: the carried binaries.
export BLOCKTUNE_CLI="$(realpath "$BIN/blocktune")" BLOCKTUNE_WORKER="$(realpath "$BIN/blocktune-worker")"
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version --format=csv"
  step "GPU tests" "$BIN/test_gpu --durations yes"
  step "launcher GPU tests" "$BIN/test_launcher_gpu"
  step "occupancy: cuda_occupancy.h against the driver" "$BIN/record_occupancy $OUT/occupancy_live.csv"
  for n in 100 7; do
    step "$n steps through run_steps" "$BIN/example_time_steps --db /tmp/time-steps-r1.db --kernel stencil3d_r1 --problem 512x512x512 --time-steps $n"
  done
} 2>&1 | tee "$OUT/runtime-check.log"
