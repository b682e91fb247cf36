#!/usr/bin/env bash
# A STREAM coding change against the one before it, in one run (issue 19):
# the same configurations timed by both builds in turn (OLD=.carry/old,
# NEW=.carry/bin), then NEW's best launch per fusion depth at radius 1 and 2
# over STREAM's whole space (fused_steps 2-4) against RING's best single step.
#   OLD=.carry/old NEW=.carry/bin OUT=/tmp/out bash bench/experiments/stream_variant.sh
source "$(dirname "$0")/../gpu/common.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
configs=(
  "1 1 block_x=64,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=8,vx=4,py=1,fused_steps=1,carveout=-1"
  "1 100 block_x=32,block_y=8,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=2,carveout=100"
  "1 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=3,carveout=-1"
  "1 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=4,carveout=100"
  "2 1 block_x=32,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=16,vx=2,py=2,fused_steps=1,carveout=-1"
  "2 100 block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=64,vx=2,py=4,fused_steps=2,carveout=-1"
)
for round in 1 2; do
  for entry in "${configs[@]}"; do
    read -r r steps config <<< "$entry"
    for build in OLD NEW; do
      printf '%s round %s r%s: ' "$build" "$round" "$r"
      BLOCKTUNE_CACHE_DIR=/tmp/cache-$build "${!build}/blocktune" measure stencil3d_r$r -p 512x512x512 --time-steps "$steps" -c "$config" 2>&1 | grep -E "ms median|wrong|fail|error" | head -1
    done
  done
done
for r in 1 2; do
  step "NEW: best STREAM launch per depth, radius $r" "'$NEW/blocktune' bench stencil -r $r -n 512 --time-steps 100 --where 'strategy == \"STREAM\" && fused_steps >= 2 && fused_steps <= 4 || strategy == \"RING\"' --db $OUT/new-r$r.db --csv $OUT/per-step.csv 2> $OUT/bench-r$r.err"
  gzip -f $OUT/new-r$r.db
done
