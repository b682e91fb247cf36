#!/usr/bin/env bash
# Complete H100 spaces of today's default stencil space (issue 18): every
# configuration of stencil3d_rN at the given problem, measured with the
# exhaustive strategy into one database, resuming one stored earlier (the
# database travels back and forth as $DB_IN.gz). The tunes together stop at
# $LIMIT seconds (SIGTERM: a clean stop; the next call resumes it).
#   BIN=.carry/bin OUT=/tmp/out DB_IN=.carry/spaces.db LIMIT=540 bash bench/gpu/record-spaces.sh "stencil3d_r1:512x512x512 ..."
source "$(dirname "$0")/common.sh"
LIMIT=${LIMIT:-540}
db=/tmp/spaces.db
[[ -f ${DB_IN:-}.gz ]] && gunzip -c "$DB_IN.gz" > $db
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv"
  for item in $1; do
    kernel=${item%%:*} problem=${item#*:}
    left=$((LIMIT - SECONDS))
    ((left > 20)) || break
    step "$kernel $problem, every configuration (at most $left s)" \
      "timeout -s TERM $left $BIN/blocktune tune $kernel --problem $problem --strategy exhaustive --db $db 2>&1 | tail -30"
  done
  step "stored trials" "$BIN/blocktune db list --db $db"
} 2>&1 | tee "$OUT/record-$(date +%s).log"
gzip -c $db > "$OUT/spaces.db.gz"
