#!/usr/bin/env bash
# The third STREAM coding (x and y neighbours from each level's whole plane in
# shared memory, no masks outside the tiles that reach a face, vector-aligned
# written columns, 16-wide and 32-high blocks) against the second, in one run
# (issue 19): the same configurations timed by both builds in turn (OLD, NEW),
# then each build's best launch per fusion depth at radius 1 and 2 over its
# STREAM space (fused_steps 2-4) against RING's best single step.
#   OLD=.carry/old NEW=.carry/bin OUT=/tmp/out bash bench/experiments/stream_third.sh
source "$(dirname "$0")/../gpu/common.sh"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
both=(
  "1 1 block_x=64,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=8,vx=4,py=1,fused_steps=1,carveout=-1"
  "1 100 block_x=32,block_y=8,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=2,carveout=100"
  "1 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=3,carveout=-1"
  "1 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=4,carveout=100"
  "2 1 block_x=32,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=16,vx=2,py=2,fused_steps=1,carveout=-1"
  "2 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=2,carveout=-1"
)
new_only=(
  "1 100 block_x=16,block_y=32,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=3,carveout=-1"
  "2 100 block_x=16,block_y=32,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=2,carveout=-1"
)
measure() {  # BUILD R STEPS CONFIG
  printf '%s r%s: ' "$1" "$2"
  BLOCKTUNE_CACHE_DIR=/tmp/cache-$1 "${!1}/blocktune" measure stencil3d_r$2 -p 512x512x512 --time-steps "$3" -c "$4" 2>&1 | grep -E "ms median|wrong|fail|error" | head -1
}
for round in 1 2; do
  echo "== round $round"
  for entry in "${both[@]}"; do
    read -r r steps config <<< "$entry"
    for build in OLD NEW; do measure $build "$r" "$steps" "$config"; done
  done
  for entry in "${new_only[@]}"; do
    read -r r steps config <<< "$entry"
    measure NEW "$r" "$steps" "$config"
  done
done
where='strategy == "STREAM" && fused_steps >= 2 && fused_steps <= 4 || strategy == "RING"'
for build in NEW OLD; do
  for r in 1 2; do
    step "$build: best STREAM launch per depth, radius $r" "'${!build}/blocktune' bench stencil -r $r -n 512 --time-steps 100 --where '$where' --db $OUT/$build-r$r.db --csv $OUT/$build-per-step.csv 2> $OUT/$build-bench-r$r.err"
    gzip -f $OUT/$build-r$r.db
  done
done
