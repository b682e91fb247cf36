#!/usr/bin/env bash
# The stencil study with the RING coding (issue 4), on the GPU machine: per
# radius, every RING configuration with short z chunks (8 or 16 planes won at
# radius 4, bench/results/stencil-r4) and the best configuration of the earlier
# codings at that radius, re-timed in the same run against the naive baseline
# and the device-to-device copy. Appends to $OUT/ring.csv; the database comes
# back compressed as $OUT/ring.db.gz.
#   BIN=.carry/me OUT=/tmp/out bash bench/gpu/ring-study.sh "1 2 3 4 5"
source "$(dirname "$0")/common.sh"
radii=${1:-"1 2 3 4 5"}
DB=${DB:-/tmp/ring.db}
ring='strategy == "RING" && z_chunk <= 16 && carveout == -1'
exact() {  # strategy zloop block_x block_y block_z z_chunk vx py: one configuration at the default carveout
  printf 'strategy == "%s" && zloop == "%s" && block_x == %s && block_y == %s && block_z == %s && z_chunk == %s && vx == %s && py == %s && carveout == -1' "$@"
}
# The best of the earlier codings per radius (bench/results/stencil-r4, stencil-temporal).
declare -A earlier=(
  [1]="($(exact CSL NONE 32 8 2 1 4 1)) || ($(exact BASE NONE 32 8 2 1 4 1))"
  [2]="($(exact BASE REG 128 8 1 8 4 1))"
  [3]="($(exact BASE REG 128 2 1 8 4 2))"
  [4]="($(exact BASE INTZ 64 8 1 8 4 1))"
  [5]="($(exact COMP REG 32 4 1 32 2 2)) || ($(exact BASE REG 32 8 1 32 4 1))"
)
date -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
for r in $radii; do
  where="($ring) || ${earlier[$r]}"
  step "radius $r, 512^3" "'$BIN/blocktune' bench stencil --radius $r --size 512 --where '$where' --db $DB --csv $OUT/ring.csv 2>&1 | grep -v '^tuning:'"
done
gzip -c "$DB" > "$OUT/ring.db.gz"
