#!/usr/bin/env bash
# Where a fused STREAM launch spends its time (issue 19), on the GPU machine:
# Nsight Compute's warp states, pipes and memory for the best launch of each
# fusion depth at radius 1 and 2 (bench/results/time-steps/prefetch/per-step.csv)
# and the best single step (RING), and the SASS of the r1 3-step winner with its
# stall samples per instruction. ncu leaves the clocks alone (METHOD.md).
#   BIN=.carry/bin OUT=/tmp/out bash bench/experiments/stream_ncu.sh
source "$(dirname "$0")/../gpu/common.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NCU="ncu --clock-control none --target-processes all --kernel-name stencil3d --launch-skip 3 --launch-count 1"
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats"
profile() {  # NAME KERNEL STEPS CONFIG
  local name=$1 kernel=$2 steps=$3 config=$4
  step "$name: timing" "'$BIN/blocktune' measure $kernel -p 512x512x512 --time-steps $steps -c '$config' 2>&1 | tail -3"
  step "$name: ncu" "$NCU $SECTIONS --export $OUT/$name '$BIN/blocktune' measure $kernel -p 512x512x512 --time-steps $steps -c '$config' --repeats 5 > $OUT/$name.run.log 2>&1; ncu --import $OUT/$name.ncu-rep --page details > $OUT/$name.details.txt 2>&1; tail -1 $OUT/$name.run.log"
}
profile r1-ring   stencil3d_r1 1   "block_x=64,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=8,vx=4,py=1,fused_steps=1,carveout=-1"
profile r1-k1     stencil3d_r1 1   "block_x=32,block_y=2,block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx=4,py=4,fused_steps=1,carveout=-1"
profile r1-k2     stencil3d_r1 100 "block_x=32,block_y=8,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=2,carveout=100"
profile r1-k3     stencil3d_r1 100 "block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=3,carveout=-1"
profile r2-k2     stencil3d_r2 100 "block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=2,carveout=-1"
step "r1-k3: SASS with stall samples" "$NCU --section SourceCounters --section WarpStateStats --export $OUT/r1-k3-source '$BIN/blocktune' measure stencil3d_r1 -p 512x512x512 --time-steps 100 -c 'block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=3,carveout=-1' --repeats 5 > /dev/null 2>&1; ncu --import $OUT/r1-k3-source.ncu-rep --page source --print-source sass --csv > $OUT/r1-k3-sass.csv 2> $OUT/r1-k3-sass.err; wc -l $OUT/r1-k3-sass.csv; head -3 $OUT/r1-k3-sass.csv"
gzip -f $OUT/*.ncu-rep
