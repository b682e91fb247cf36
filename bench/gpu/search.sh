#!/usr/bin/env bash
# The GPU tests, then tune with the default search strategy on the GPU machine
# (issues 5 and 9): 10% of the radius-1 256^3 stencil space, the same command
# again with 20 more (it retraces the stored steps for free, then goes on), and
# the report with the model's predicted time next to the measured one.
#   BIN=.carry/bin OUT=/tmp/out bash bench/gpu/search.sh
source "$(dirname "$0")/common.sh"
db=$OUT/search.db
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version --format=csv"
  step "GPU tests" "$BIN/test_gpu --durations yes"
  step "launcher GPU tests" "$BIN/test_launcher_gpu"
  step "default strategy, 10% of the space" \
    "time $BIN/blocktune tune stencil3d_r1 --problem 256x256x256 --max-evaluations 487 --db $db"
  step "the same command, 20 more" "$BIN/blocktune tune stencil3d_r1 --problem 256x256x256 --max-evaluations 20 --db $db"
  step "report" "$BIN/blocktune report --db $db --format markdown --output $OUT/search-report.md && head -40 $OUT/search-report.md"
} 2>&1 | tee "$OUT/search.log"
gzip -f "$db"
