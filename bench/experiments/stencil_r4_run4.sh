#!/usr/bin/env bash
# Call 4 on the H100 (bench/results/stencil-r4/README.md), from the repository root with the harness
# built as .carry/r4/r4 and the r4-kernel binaries in .carry/r4bin: the standalone harness again (with the project's RING
# kernel), `blocktune bench stencil` at radius 4 over RING and BASE+INTZ vx4,
# and the GPU tests of every coding. Binaries built on Debian 12 from the
# r4-kernel worktree, carried in .carry/r4bin.
set -uo pipefail
B=$PWD/.carry/r4bin
export LD_LIBRARY_PATH=$B BLOCKTUNE_WORKER=$B/blocktune-worker BLOCKTUNE_CACHE_DIR=/tmp/blocktune-cache
mkdir -p /work && ln -sfn "$PWD" /work/main 2>/dev/null
{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
  (cd .carry/r4 && ./r4)
} 2>&1 | tee "$OUT/harness4.log" | tail -14
WHERE='carveout == -1 && (strategy == "RING" || strategy == "BASE" && zloop == "INTZ" && vx == 4)'
{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
  printf '$ blocktune bench stencil --radius 4 --size 512 --where %s\n' "'$WHERE'"
  /usr/bin/time -f "(%e s)" timeout 240 "$B/blocktune" bench stencil --radius 4 --size 512 --where "$WHERE" --db /tmp/r4.db --csv "$OUT/h100-ring.csv"
} 2>&1 | tee "$OUT/h100-ring.log" | grep -v "^tuning:"
gzip -c /tmp/r4.db > "$OUT/h100-ring.db.gz"
{
  echo '$ test_gpu "every coding*"'
  timeout 120 "$B/test_gpu" "every coding*"
  echo "(exit $?)"
} 2>&1 | tee "$OUT/h100-ring-gpu-tests.log" | tail -15
