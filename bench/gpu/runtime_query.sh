#!/usr/bin/env bash
# Issue 3 on the GPU machine: examples/runtime_query's stencil_app, built
# against an installed blocktune, asks the database for its launch
# configuration on a GPU that was never tuned, then after tuning, and checks
# its result against the CPU at every step.
#   BIN=.carry/bin APP=.carry/bin/stencil_app OUT=/tmp/out bash bench/gpu/runtime_query.sh
# Steps 6 to 9 stand in for other GPUs: a copy of the database whose device
# row says another GPU (new UUID, then also another name, SM count and
# compute capability), so that each fallback level answers in turn.
set -uo pipefail
BIN=${BIN:-build/cli}
APP=${APP:-build-app/stencil_app}
OUT=${OUT:-/tmp/blocktune-out}
mkdir -p "$OUT"
db=$OUT/app.db

step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; echo "(exit $?)"; }
as_other_gpu() {  # copy of $db whose device row is changed by SQL $2, as $1
  cp "$db" "$1"
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()" "$1" "$2"
}

{
  date -u
  nvidia-smi --query-gpu=name,uuid,driver_version --format=csv
  step "1. no database: the built-in default" "$APP" "$OUT/missing.db" 256
  step "2. a database with other kernels only" "$APP" tests/data/db/stencil3d_r1_h200.db 256
  step "3. tune stencil_app's kernel on this GPU" "$BIN/blocktune" tune --spec examples/runtime_query/stencil7.json \
    --problem 256x256x256 --db "$db"
  step "4. this GPU, the tuned size" "$APP" "$db" 256
  step "5. this GPU, another size" "$APP" "$db" 200
  as_other_gpu "$OUT/sibling.db" "update devices set uuid = 'GPU-00000000-0000-0000-0000-000000000001'"
  step "6. another GPU of the same name" "$APP" "$OUT/sibling.db" 256
  as_other_gpu "$OUT/same-sms.db" "update devices set uuid = 'GPU-00000000-0000-0000-0000-000000000002', name = 'another sm_90 GPU'"
  step "7. another GPU of the same architecture and SM count" "$APP" "$OUT/same-sms.db" 256
  as_other_gpu "$OUT/same-arch.db" "update devices set uuid = 'GPU-00000000-0000-0000-0000-000000000003', name = 'another sm_90 GPU', sm_count = sm_count / 2"
  step "8. another GPU of the same architecture" "$APP" "$OUT/same-arch.db" 256
  as_other_gpu "$OUT/other-arch.db" "update devices set uuid = 'GPU-00000000-0000-0000-0000-000000000004', name = 'an sm_80 GPU', cc_major = 8, cc_minor = 0"
  step "9. only another architecture's results" "$APP" "$OUT/other-arch.db" 256
  step "the database" "$BIN/blocktune" best stencil3d --problem 256x256x256 --db "$db"
} 2>&1 | tee "$OUT/runtime_query.log"
