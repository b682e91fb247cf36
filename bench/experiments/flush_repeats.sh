#!/usr/bin/env bash
# Spaces measured twice with the L2 warm (--warm-l2) and twice flushed (--flush-l2, tune's default since schema
# version 7), alternating, each into its own database: how much of the recording-to-recording noise of a short
# launch is the L2's state (bench/results/reliability/l2-state/; its first two runs used binaries from before
# --warm-l2, where warm was the default and took no flag). Then a warm tune over a flushed database: it measures
# every configuration again. Items are SPEC:PROBLEM.
#   BIN=.carry/bin OUT=/tmp/out bash bench/experiments/flush_repeats.sh "examples/specs/reduction/spec.json:9437184 ..."
source "$(dirname "$0")/../gpu/common.sh"
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv"
  for item in $1; do
    spec=${item%%:*} problem=${item#*:}
    for r in 1 2; do
      for mode in warm flushed; do
        flag=--warm-l2; [ $mode = flushed ] && flag=--flush-l2
        rm -rf "$BLOCKTUNE_CACHE_DIR"
        step "$spec $problem, $mode, repeat $r" \
          "$BIN/blocktune tune --spec $spec --problem $problem --strategy exhaustive $flag --db $OUT/$mode-$r.db 2>&1 | tail -3"
      done
    done
  done
  if "$BIN/blocktune" tune --help | grep -q -- --warm-l2; then
    cp "$OUT/flushed-1.db" "$OUT/switched.db"
    step "$spec $problem (the last item), warm over flushed-1" \
      "$BIN/blocktune tune --spec $spec --problem $problem --strategy exhaustive --warm-l2 --db $OUT/switched.db 2>&1 | head -2"
    for db in warm-1 flushed-1 switched; do
      step "$db: trials by how the L2 was left" "$BIN/blocktune db export --db $OUT/$db.db | grep -o '\"l2_flushed\":[a-z]*' | sort | uniq -c"
    done
  fi
} 2>&1 | tee "$OUT/flush-repeats.log"
