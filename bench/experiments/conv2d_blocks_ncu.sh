#!/bin/bash
# conv2d on the GPU machine: why large blocks run slower at the same occupancy
# (issue 9, conv2d's rank correlation). Times each configuration, then reads
# its instruction count, shared-memory wavefronts, traffic and warp-stall
# breakdown with Nsight Compute (ncu locks the SM clock, so its durations are
# longer than the timings). Run from the repository root with the carried
# build in .carry/me; prints to stdout.
export LD_LIBRARY_PATH=$PWD/.carry/me BLOCKTUNE_WORKER=$PWD/.carry/me/blocktune-worker BLOCKTUNE_CACHE_DIR=/tmp/blocktune-cache
nvidia-smi --query-gpu=name --format=csv,noheader
B=.carry/me/blocktune
SPEC=examples/specs/conv2d/spec.json
METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors.sum,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.per_cycle_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
for cfg in "$@"; do
  echo "=== $cfg"
  $B measure --spec $SPEC -p 8192x8192 -c "$cfg" 2>&1 | tail -1
  ncu --target-processes all --kernel-name conv2d --launch-skip 2 --launch-count 1 --metrics "$METRICS" \
      $B measure --spec $SPEC -p 8192x8192 -c "$cfg" --repeats 3 2>&1 | grep -E "^\s+(gpu__|smsp__|l1tex__|lts__|dram__|sm__)" | awk '$NF != 0'
done
