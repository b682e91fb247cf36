#!/usr/bin/env bash
# kill -9 at random points of `tune` (simulated), `db import`, `db merge` and `db export FILE`,
# round robin, KILLS in all. After each kill: `db check` must pass, the trial count must not go
# down (and import/merge are all or nothing: the count rises by the source's trials or not at
# all), an export file is complete (every trial) or absent, and after a killed tune a rerun of
# the same tune exits 0 and resumes exactly the trials the killed run stored.
# usage: kill9.sh [KILLS=500] [WORKDIR=/tmp/blocktune-kill9] [SEED=1]
set -u
source "$(dirname "$0")/common.sh"
KILLS=${1:-500}; W=${2:-/tmp/blocktune-kill9}; RANDOM=${3:-1}
rm -rf "$W"; mkdir -p "$W/src"; DB=$W/main.db; LOG=$W/kills.log; : >"$LOG"
NSRC=20
fail() { echo "FAIL kill $it ($cmd): $*" | tee -a "$W/failures.log"; }

# sources: NSRC databases to merge and NSRC exports to import, each a new problem (disjoint trials)
sim_tune 0 1x1 "$DB" --strategy random --max-evaluations 20 >/dev/null 2>&1
for s in $(seq 1 $NSRC); do
  sim_tune 2 "$(problem_of 2 40 $s)" "$W/src/m$s.db" --strategy random --seed $s --max-evaluations 12 >/dev/null 2>&1
  sim_tune 1 "$(problem_of 1 41 $s)" "$W/src/i$s.db" --strategy random --seed $s --max-evaluations 12 >/dev/null 2>&1
  "$BT" db --db "$W/src/i$s.db" export "$W/src/i$s.json" >/dev/null 2>&1
  msrc[$s]=$(trial_count "$W/src/m$s.db"); isrc[$s]=$(trial_count "$W/src/i$s.db"); mdone[$s]=0; idone[$s]=0
done

# how long each command takes unkilled (the random delays are drawn from 0 to 0.9 times this)
ms() { date +%s%N | cut -c1-13; }
t0=$(ms); sim_tune 0 2x2 "$DB" --strategy random --max-evaluations 40 >/dev/null 2>&1; t1=$(ms)
"$BT" db --db "$DB" import "$W/src/i$NSRC.json" >/dev/null 2>&1; t2=$(ms); idone[$NSRC]=1
"$BT" db --db "$DB" merge "$W/src/m$NSRC.db" >/dev/null 2>&1; t3=$(ms); mdone[$NSRC]=1
"$BT" db --db "$DB" export "$W/calib.json" >/dev/null 2>&1; t4=$(ms)
dur_tune=$((t1 - t0)); dur_import=$((t2 - t1)); dur_merge=$((t3 - t2)); dur_export=$((t4 - t3))
echo "unkilled: tune ${dur_tune} ms, import ${dur_import} ms, merge ${dur_merge} ms, export ${dur_export} ms" | tee "$W/summary.txt"

prev=$(trial_count "$DB"); tk=0
declare -A killed=() exited=() failures=()
for it in $(seq 1 "$KILLS"); do
  case $((it % 4)) in 0) cmd=tune ;; 1) cmd=import ;; 2) cmd=merge ;; 3) cmd=export ;; esac
  eval "dur=\$dur_$cmd"; delay_ms=$(( RANDOM % (dur * 9 / 10 + 1) ))
  s=$(( RANDOM % (NSRC - 1) + 1 ))
  case $cmd in
    tune) tk=$((tk + 1)); p=$(problem_of 0 50 $tk)
          # exec: $! must be blocktune itself, not a subshell running sim_tune
          ( exec "$BT" tune --spec "$SPECS/${KSPEC[0]}/spec.json" -p "$p" --simulate "$SPACES/${KREC[0]}-h100-80gb-hbm3.csv.gz" \
              --db "$DB" -j1 --strategy random --seed $tk --max-evaluations 40 >/dev/null 2>&1 ) & ;;
    import) "$BT" db --db "$DB" import "$W/src/i$s.json" >/dev/null 2>&1 & ;;
    merge) "$BT" db --db "$DB" merge "$W/src/m$s.db" >/dev/null 2>&1 & ;;
    export) rm -f "$W/out.json" "$W/out.json.partial"
            "$BT" db --db "$DB" export "$W/out.json" >/dev/null 2>&1 & ;;
  esac
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if kill -9 $pid 2>/dev/null; then what=killed; killed[$cmd]=$(( ${killed[$cmd]:-0} + 1 ))
  else what=exited; exited[$cmd]=$(( ${exited[$cmd]:-0} + 1 )); fi
  wait $pid 2>/dev/null; rc=$?
  before_fail=$(cat "$W/failures.log" 2>/dev/null | wc -l)

  chk=$("$BT" db --db "$DB" check 2>&1) || fail "db check: $chk"
  now=$(trial_count "$DB")
  [ -n "$now" ] || fail "trial count unreadable"
  [ "${now:-0}" -ge "$prev" ] || fail "trials went down: $prev -> $now"
  case $cmd in
    import|merge)
      if [ $cmd = import ]; then n=${isrc[$s]}; d=${idone[$s]}; else n=${msrc[$s]}; d=${mdone[$s]}; fi
      if [ "$d" = 1 ]; then [ "$now" -eq "$prev" ] || fail "source $s already in, count $prev -> $now"
      elif [ "$now" -eq $((prev + n)) ]; then eval "${cmd:0:1}done[$s]=1"
      elif [ "$now" -ne "$prev" ]; then fail "not all or nothing: $prev -> $now (source $n trials)"; fi ;;
    export)
      if [ -e "$W/out.json" ]; then
        got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["trials"]))' "$W/out.json" 2>&1)
        [ "$got" = "$now" ] || fail "export file present but not complete: $got of $now trials"
        state=complete
      else state=absent; fi
      [ -e "$W/out.json.partial" ] && state="$state+partial" ;;
    tune)
      stored=$((now - prev))
      out=$(sim_tune 0 "$p" "$DB" --strategy random --seed $tk --max-evaluations 40 2>&1); rrc=$?
      res=$(sed -n 's/^[0-9][0-9]* measured, \([0-9][0-9]*\) resumed.*/\1/p' <<<"$out")
      [ $rrc -eq 0 ] || fail "rerun of tune exited $rrc: $(tail -1 <<<"$out")"
      [ "$res" = "$stored" ] || fail "rerun resumed ${res:-?} of the $stored trials the killed run stored"
      state="stored $stored, rerun resumed ${res:-?}"
      now=$(trial_count "$DB") ;;
  esac
  echo "$it $cmd $what after ${delay_ms} ms (exit $rc) trials $prev -> $now ${state:-}" >>"$LOG"; state=
  prev=${now:-$prev}
done

nf=$(cat "$W/failures.log" 2>/dev/null | wc -l)
for c in tune import merge export; do
  echo "$c: ${killed[$c]:-0} killed while running, ${exited[$c]:-0} had already exited" | tee -a "$W/summary.txt"
done
echo "export files after a kill: $(grep -c 'export killed.*absent' "$LOG") absent, $(grep -c 'export killed.*complete' "$LOG") complete, $(grep -c 'export killed.*partial' "$LOG") with a .partial left" | tee -a "$W/summary.txt"
echo "final: $(trial_count "$DB") trials; failures: $nf" | tee -a "$W/summary.txt"
[ "$nf" -eq 0 ]
