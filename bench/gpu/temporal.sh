#!/usr/bin/env bash
# Temporal blocking on the GPU machine (issue 4): for each radius, tune a
# restricted space of the stencil at 512^3 -- every STREAM configuration
# (fused_steps 1 to 4) and the single-step codings that won the study (BASE and
# CSL, vector loads, default carveout) -- then time the best of each coding and
# fused step count against the naive baseline and the same-run device-to-device
# copy. Figures are per time step. Appends to $OUT/temporal.csv; the database
# comes back compressed as $OUT/temporal.db.gz.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/temporal.sh "1 2 4" 512
set -uo pipefail
BIN=${BIN:-build/cli}
OUT=${OUT:-/tmp/blocktune-out}
radii=${1:-"1 2 4"}
size=${2:-512}
DB=${DB:-/tmp/temporal.db}
WHERE=${WHERE:-'strategy == "STREAM" || strategy != "COMP" && vx >= 2 && carveout == -1'}
mkdir -p "$OUT"
export BLOCKTUNE_CACHE_DIR=${BLOCKTUNE_CACHE_DIR:-/tmp/blocktune-cache}
{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
  for r in $radii; do
    printf '\n== radius %s, problem %s\n$ %s\n' "$r" "$size" "blocktune bench stencil --radius $r --size $size --where '$WHERE'"
    /usr/bin/time -f "(%e s)" "$BIN/blocktune" bench stencil --radius "$r" --size "$size" --where "$WHERE" --db "$DB" --csv "$OUT/temporal.csv"
  done
} 2>&1 | tee -a "$OUT/temporal.log"
gzip -c "$DB" > "$OUT/temporal.db.gz"
