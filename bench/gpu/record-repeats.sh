#!/usr/bin/env bash
# Complete spaces of spec kernels, each measured REPEATS times into its own
# database (repeat-1.db, repeat-2.db, ...): how far a recorded optimum is
# only measurement noise (issue 18). Items are SPEC:PROBLEM; the repeats of
# one item run back to back, with a fresh variant cache each, so that every
# repeat pays its compiles as the first did. TUNE_ARGS are added to every
# tune (e.g. --warm-l2).
#   BIN=.carry/bin OUT=/tmp/out REPEATS=2 LIMIT=540 bash bench/gpu/record-repeats.sh "examples/specs/reduction/spec.json:67108864 ..."
source "$(dirname "$0")/common.sh"
LIMIT=${LIMIT:-540}
REPEATS=${REPEATS:-2}
rm -f /tmp/repeat-*.db  # a run of its own: nothing of an earlier one in the same machine
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv"
  for item in $1; do
    spec=${item%%:*} problem=${item#*:}
    for ((r = 1; r <= REPEATS; ++r)); do
      left=$((LIMIT - SECONDS))
      ((left > 20)) || break 2
      rm -rf "$BLOCKTUNE_CACHE_DIR"
      step "$spec $problem, repeat $r, every configuration (at most $left s)" \
        "timeout -s TERM $left $BIN/blocktune tune --spec $spec --problem $problem --strategy exhaustive ${TUNE_ARGS:-} --db /tmp/repeat-$r.db 2>&1 | tail -12"
    done
  done
  for ((r = 1; r <= REPEATS; ++r)); do
    step "repeat $r: stored trials" "$BIN/blocktune db list --db /tmp/repeat-$r.db"
    gzip -c /tmp/repeat-$r.db > "$OUT/repeat-$r.db.gz"
  done
} 2>&1 | tee "$OUT/record-repeats-$(date +%s).log"
