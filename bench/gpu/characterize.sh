#!/usr/bin/env bash
# Issue 9's evidence on the GPU machine: `blocktune characterize` twice (is it
# repeatable?), `blocktune devices`, and the measured parameters in the format
# of tests/data/devices/*.metrics. Run from the repository root:
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/characterize.sh
source "$(dirname "$0")/common.sh"
{
  date -u
  step "GPU as nvidia-smi sees it" "nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem,ecc.mode.current --format=csv"
  step "blocktune devices" "$BIN/blocktune devices"
  step "characterize (1)" "time $BIN/blocktune characterize --db $OUT/characterize.db | tee $OUT/characterize-1.log"
  step "characterize (2)" "time $BIN/blocktune characterize --db $OUT/characterize.db | tee $OUT/characterize-2.log"
  step "stored metrics" "$BIN/blocktune db --db $OUT/characterize.db export > $OUT/characterize.json; grep -c value $OUT/characterize.json"
} 2>&1 | tee "$OUT/session.log"
# The second run's figures as name value unit, for tests/data/devices/h100-80gb-hbm3.metrics.
awk 'NF >= 3 && $2 ~ /^[0-9.]+$/ && $1 ~ /_(gbs|cycles|us|mhz|gflops|gops)$/ {print $1, $2, $3}' "$OUT/characterize-2.log" > "$OUT/measured.metrics"
cat "$OUT/measured.metrics"
