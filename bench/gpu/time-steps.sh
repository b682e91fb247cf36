#!/usr/bin/env bash
# Time steps on the GPU machine (issue 19), one radius per call: tune the whole
# stencil space at 512^3 for 100 time steps (every fusion depth; each fused
# configuration is checked against the host reference of as many steps as it
# fuses), resume it for one step, ask the run-time query for several step
# counts, explain the winner, run 100 steps through TunedKernel::run_steps
# against 100 single steps, and re-time the best of each coding and depth
# against the same-run copy (measuring what the tune left). The database comes back compressed.
# TUNE_LIMIT stops the 100-step tune after that many seconds (SIGTERM: a clean
# stop); a database given as $DB_IN.gz is resumed.
#   BIN=.carry/bin EXAMPLE=.carry/bin/example_time_steps OUT=/tmp/out bash bench/gpu/time-steps.sh 1
source "$(dirname "$0")/common.sh"
r=${1:-1}
db=$OUT/time-steps-r$r.db
kernel=stencil3d_r$r
problem=512x512x512
[[ -f ${DB_IN:-}.gz ]] && gunzip -c "$DB_IN.gz" > "$db"
step "tune, 100 steps" "timeout -s TERM ${TUNE_LIMIT:-86400} '$BIN/blocktune' tune $kernel -p $problem --time-steps 100 --db $db 2> $OUT/tune-r$r-100.err"
step "tune, 1 step (resumes)" "'$BIN/blocktune' tune $kernel -p $problem --db $db 2> $OUT/tune-r$r-1.err"
for n in 1 100 50 7 2; do step "best, $n steps" "'$BIN/blocktune' best $kernel -p $problem --time-steps $n --db $db"; done
step "explain, 100 steps" "'$BIN/blocktune' explain $kernel -p $problem --time-steps 100 --db $db"
step "100 steps through run_steps" "'${EXAMPLE:-build/examples/time_steps/example_time_steps}' --db $db --kernel $kernel --problem $problem --time-steps 100"
step "bench stencil" "'$BIN/blocktune' bench stencil -r $r -n 512 --time-steps 100 --db $db --csv $OUT/per-step.csv 2> $OUT/bench-r$r.err"
step "database check" "'$BIN/blocktune' db --db $db check"
gzip -f "$db"
