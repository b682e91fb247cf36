#!/usr/bin/env bash
# How a launch's last blocks finish on the small held-out stencil grids (issue 18, item 3; bench/results/model/README.md,
# "The stencil on the held-out sets"): for the optimum's coding of three of them, z_chunk 8 to 64, blocktune's own
# timing and Nsight Compute's per-SM activity of one launch: the launch's elapsed cycles against the mean and the
# least active SM's, which is the idle time at the end that the model's tail term estimates. On the GPU machine:
#   BIN=.carry/bin OUT=/tmp/out bash bench/experiments/tail_ncu.sh
source "$(dirname "$0")/../gpu/common.sh"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,launch__grid_size,launch__waves_per_multiprocessor,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed"
# name, kernel, problem and the optimum's configuration less its z_chunk (Z)
CASES=("r3-256 stencil3d_r3 256x256x256 block_x=64,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=Z,vx=4,py=2,fused_steps=1,carveout=100"
       "r4-256 stencil3d_r4 256x256x256 block_x=32,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=Z,vx=4,py=2,fused_steps=1,carveout=-1"
       "r3-384 stencil3d_r3 384x256x256 block_x=32,block_y=4,block_z=1,strategy=RING,zloop=REG,z_chunk=Z,vx=4,py=2,fused_steps=1,carveout=-1")
for z in 8 16 32 64; do
  for entry in "${CASES[@]}"; do
    read -r name kernel problem config <<< "$entry"
    run="'$BIN/blocktune' measure $kernel -p $problem -c '${config/z_chunk=Z/z_chunk=$z}'"
    step "$name-z$z: timing" "$run 2>&1 | tail -2"
    step "$name-z$z: ncu" "ncu --clock-control none --target-processes all --kernel-name stencil3d --launch-skip 3 --launch-count 1 --csv --page raw --metrics $METRICS $run --repeats 5 > $OUT/$name-z$z.csv 2> $OUT/$name-z$z.err; grep -c stencil3d $OUT/$name-z$z.csv"
  done
done
