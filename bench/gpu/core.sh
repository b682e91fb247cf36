#!/usr/bin/env bash
# Issue 2's evidence on the GPU machine, in one call. Run from the repository
# root with the binaries in $BIN (built on a Debian 12 machine, see README):
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/core.sh
source "$(dirname "$0")/common.sh"
{
  date -u
  step "GPU as nvidia-smi sees it" "nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm,clocks.sm,clocks.max.mem,ecc.mode.current --format=csv"
  step "blocktune devices" "$BIN/blocktune devices"
  step "blocktune devices against the CUDA runtime (PyTorch)" "$BIN/blocktune devices --json > $OUT/devices.json && python3 bench/gpu/compare_devices.py $OUT/devices.json"
  step "GPU tests" "$BIN/test_gpu --durations yes"
  step "occupancy: CPU (cuda_occupancy.h) against cuOccupancyMaxActiveBlocksPerMultiprocessor" "$BIN/record_occupancy $OUT/occupancy_h100.csv"
  step "one configuration timed in two processes (1)" "$BIN/blocktune measure stencil3d_r1 --repeats 500"
  step "one configuration timed in two processes (2)" "$BIN/blocktune measure stencil3d_r1 --repeats 500"
  step "compile throughput, 16 cores" "$BIN/blocktune bench compile --arch sm_90"
  step "main job: tune the default kernel" "time $BIN/blocktune tune --db $OUT/tuning.db"
  step "main job again: resumes, measures nothing" "time $BIN/blocktune tune --db $OUT/tuning.db"
  step "best" "$BIN/blocktune best stencil3d_r1 --problem 512x512x512 --device 0 --db $OUT/tuning.db"
} 2>&1 | tee "$OUT/session.log"
