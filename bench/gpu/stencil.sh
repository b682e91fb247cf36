#!/usr/bin/env bash
# The stencil study on the GPU machine (issue 4): for each radius and problem,
# tune every configuration (resuming from the database), then time the best
# configuration of each coding against the naive baseline and the same-run
# device-to-device copy. Appends to $OUT/study.csv; the database (DB, default
# /tmp/stencil.db) comes back compressed as $OUT/stencil.db.gz.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/stencil.sh "1 2 4" "512"
set -uo pipefail
BIN=${BIN:-build/cli}
OUT=${OUT:-/tmp/blocktune-out}
radii=${1:-"1 2 3 4 5"}
sizes=${2:-"512"}
DB=${DB:-/tmp/stencil.db}
mkdir -p "$OUT"
export BLOCKTUNE_CACHE_DIR=/tmp/blocktune-cache
{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
  for size in $sizes; do
    for r in $radii; do
      printf '\n== radius %s, problem %s\n$ %s\n' "$r" "$size" "blocktune bench stencil --radius $r --size $size"
      /usr/bin/time -f "(%e s)" "$BIN/blocktune" bench stencil --radius "$r" --size "$size" --db "$DB" --csv "$OUT/study.csv"
    done
  done
} 2>&1 | tee -a "$OUT/stencil.log"
gzip -c "$DB" > "$OUT/stencil.db.gz"
