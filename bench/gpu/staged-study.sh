#!/usr/bin/env bash
# Out-of-sample check of the model's staging term (issue 9): every configuration
# of the staged codings (COMP and STREAM) at the default carveout, timed on the
# GPU machine per radius. Both stage their tiles in shared memory behind a
# barrier; STREAM is in no recorded space, and COMP's current code
# (asynchronous fill, one barrier per plane) is not the one the recorded spaces
# measured. The database comes back compressed as $OUT/staged.db.gz; compare
# with `blocktune plan --all` through bench/results/model/plan_vs_measured.py.
#   BIN=.carry/me OUT=/tmp/out bash bench/gpu/staged-study.sh "2 4"
source "$(dirname "$0")/common.sh"
radii=${1:-"2 4"}
DB=${DB:-/tmp/staged.db}
date -u
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
for r in $radii; do
  step "radius $r, 512^3" "'$BIN/blocktune' bench stencil --radius $r --size 512 --where '(strategy == \"COMP\" || strategy == \"STREAM\") && carveout == -1' --db $DB --csv $OUT/staged.csv 2>&1 | grep -v '^tuning:'"
done
date -u
gzip -c "$DB" > "$OUT/staged.db.gz"
