#!/usr/bin/env bash
# Soak: 8 simulated tuners (4 kernels x 2 seeds, each on a new problem size every run, so each
# keeps writing) and 8 readers (best, db list, report -f csv) on one database for DURATION seconds,
# then `db check` and a count of the trials: every trial a tuner reported ("N measured") must be
# in the database.
# usage: soak.sh [DURATION_S=600] [WORKDIR=/tmp/blocktune-soak]
set -u
source "$(dirname "$0")/common.sh"
DURATION=${1:-600}; W=${2:-/tmp/blocktune-soak}
rm -rf "$W"; mkdir -p "$W"; DB=$W/soak.db
END=$(( $(date +%s) + DURATION ))

tuner() { # I
  local i=$1 ki=$(( $1 % 4 )) k=0 p out rc n
  while [ "$(date +%s)" -lt "$END" ]; do
    k=$((k + 1)); p=$(problem_of $ki $i $k)
    out=$(sim_tune $ki "$p" "$DB" --strategy random --seed $((i + 1)) --max-evaluations 3 2>&1); rc=$?
    n=$(sed -n 's/^\([0-9][0-9]*\) measured, .*/\1/p' <<<"$out" | tail -1)
    echo "$rc ${n:-0} $p" >>"$W/tuner$i.log"
    [ $rc -ne 0 ] && { echo "== tuner $i $p rc=$rc"; echo "$out"; } >>"$W/errors.log"
  done
}

reader() { # J
  local j=$1 op=$1 rc ki t p out
  while [ "$(date +%s)" -lt "$END" ]; do
    op=$(( (op + 1) % 3 ))
    case $op in
      0) t=$((RANDOM % 8)); ki=$((t % 4)); p=$(problem_of $ki $t $((RANDOM % 5 + 1)))
         out=$("$BT" best "${KNAME[$ki]}" -p "$p" -a sm_90 --db "$DB" 2>&1 >/dev/null); rc=$?
         # 3 (nothing stored for the kernel) is expected until its tuners' first runs are stored
         if [ $rc -eq 3 ] && ! grep -q '^0 [1-9]' "$W/tuner$t.log" 2>/dev/null; then rc=early3; fi
         echo "best $rc" ;;
      1) out=$("$BT" db --db "$DB" list 2>&1 >/dev/null); rc=$?; echo "list $rc" ;;
      2) out=$("$BT" report --db "$DB" -f csv -o "$W/report$j.csv" 2>&1); rc=$?; echo "report $rc" ;;
    esac >>"$W/reader$j.log"
    case $rc in 0|early3) ;; *) { echo "== reader $j op $op rc=$rc"; echo "$out"; } >>"$W/errors.log" ;; esac
  done
}

# the database exists before the readers start (a reader racing its creation sees "does not exist"
# or "is empty (0 bytes)"): one first run, counted like the others
sim_tune 0 1x1 "$DB" --strategy random --max-evaluations 3 2>&1 | sed -n 's/^\([0-9][0-9]*\) measured, .*/0 \1 1x1/p' >"$W/tuner-init.log"
start=$(date +%s)
for i in 0 1 2 3 4 5 6 7; do tuner $i & reader $i & done
wait
elapsed=$(( $(date +%s) - start ))

check=$("$BT" db --db "$DB" check 2>&1); check_rc=$?
stored=$(trial_count "$DB")
reported=$(cat "$W"/tuner*.log | awk '{s += $2} END {print s + 0}')
tunes=$(cat "$W"/tuner*.log | wc -l)
tune_err=$(cat "$W"/tuner*.log | awk '$1 != 0' | wc -l)
echo "soak: $elapsed s, database $DB"
echo "tune runs: $tunes, non-zero exits: $tune_err, trials reported stored: $reported"
for op in best list report; do
  n=$(cat "$W"/reader*.log | grep -c "^$op ")
  e=$(cat "$W"/reader*.log | grep "^$op " | grep -vc -E " (0|early3)$")
  x=$(cat "$W"/reader*.log | grep -c "^$op early3$")
  echo "$op: $n runs, non-zero exits: $e (plus $x expected 3s before the kernel's first trials)"
done
echo "trials in the database: $stored, lost: $(( reported - ${stored:-0} ))"
echo "db check (exit $check_rc): $check"
"$BT" db --db "$DB" list | awk 'NR == 1'
[ "$tune_err" -eq 0 ] && [ "$stored" = "$reported" ] && [ $check_rc -eq 0 ] && \
  [ "$(cat "$W"/reader*.log | grep -vc -E ' (0|early3)$')" -eq 0 ]
