#!/usr/bin/env bash
# Disk full on each write path: the database or output file lies on a small tmpfs filled up to
# FREE bytes left (0, 16 KiB, 64 KiB), then: tune (simulated) storing trials, db import, db merge
# (database on the full disk), db export and report (output file on the full disk). Each must
# exit 1 with a message; afterwards (space freed) `db check` passes, no trial stored before is
# lost, an export file is complete or absent, and a rerun of the tune resumes. Needs root (mount).
# usage: diskfull.sh [WORKDIR=/tmp/blocktune-diskfull]
set -u
source "$(dirname "$0")/common.sh"
W=${1:-/tmp/blocktune-diskfull}; M=$W/mnt
umount "$M" 2>/dev/null; rm -rf "$W"; mkdir -p "$M" "$W/data"; D=$W/data
FAILS=0; fail() { echo "  FAIL: $*"; FAILS=$((FAILS + 1)); }

# the database (2 sessions) and the sources: about 400 trials each, so adding them needs space
sim_tune 0 8192x8192 "$D/base.db" --strategy exhaustive >/dev/null 2>&1
sim_tune 3 2000x2000 "$D/base.db" --strategy random --max-evaluations 40 >/dev/null 2>&1
for x in m i; do
  sim_tune 1 "$([ $x = m ] && echo 11111111 || echo 22222222)" "$D/$x.db" --strategy exhaustive >/dev/null 2>&1
  sim_tune 2 "$([ $x = m ] && echo 512x512x600 || echo 512x512x700)" "$D/$x.db" --strategy exhaustive >/dev/null 2>&1
done
"$BT" db --db "$D/i.db" export "$D/i.json" >/dev/null
BASE=$(trial_count "$D/base.db")
echo "database: $BASE trials; merge source $(trial_count "$D/m.db") trials; import source $(trial_count "$D/i.db") trials ($(du -k "$D/i.json" | cut -f1) KiB of JSON)"

fill() { # leave about $1 bytes free on the tmpfs
  dd if=/dev/zero of="$M/filler" bs=4096 2>/dev/null
  local size; size=$(stat -c %s "$M/filler")
  truncate -s $(( size > $1 ? size - $1 : 0 )) "$M/filler"
}

for free in 0 16384 65536; do
  for path in tune import merge export report-html report-csv; do
    mount -t tmpfs -o size=1m tmpfs "$M" || { echo "cannot mount a tmpfs"; exit 2; }
    db=$D/base.db; out=
    case $path in tune|import|merge) cp "$D/base.db" "$M/t.db"; db=$M/t.db ;; esac
    fill $free
    case $path in
      tune) cmd=(tune --spec "$SPECS/${KSPEC[1]}/spec.json" -p 33333333 --simulate "$SPACES/${KREC[1]}-h100-80gb-hbm3.csv.gz" --db "$db" -j1 --strategy exhaustive) ;;
      import) cmd=(db --db "$db" import "$D/i.json") ;;
      merge) cmd=(db --db "$db" merge "$D/m.db") ;;
      export) out=$M/out.json; cmd=(db --db "$db" export "$out") ;;
      report-html) out=$M/report.html; cmd=(report --db "$db" -o "$out") ;;
      report-csv) out=$M/report.csv; cmd=(report --db "$db" -f csv -o "$out") ;;
    esac
    "$BT" "${cmd[@]}" >"$W/stdout" 2>"$W/stderr"; rc=$?
    msg=$(grep -v '^tune: ' "$W/stderr" | tail -1)
    rm -f "$M/filler"
    after=$(trial_count "$db"); chk=$("$BT" db --db "$db" check 2>&1); crc=$?
    echo "free $free, $path: exit $rc: $(cut -c1-240 <<<"$msg")"
    echo "  after: db check exit $crc ($chk), trials $BASE -> ${after:-?}"
    if [ $rc -eq 0 ] && [ -n "$out" ] && [ -s "$out" ]; then
      echo "  (the output fitted: the fault was not reached)"
    else
      [ $rc -eq 1 ] || fail "exit $rc, not 1"
      [ -n "$msg" ] || fail "no message"
    fi
    [ $crc -eq 0 ] || fail "db check failed"
    [ "${after:-0}" -ge "$BASE" ] || fail "trials lost"
    if [ -n "$out" ]; then
      left=$(ls "$M" | grep -v '^t.db' | tr '\n' ' ')
      echo "  left on the disk: ${left:-nothing}"
      if [ -e "$out" ] && [ $path = export ] && [ $rc -ne 0 ]; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" 2>/dev/null || fail "incomplete $out left"
      fi
    fi
    if [ $path = tune ]; then
      # the resume, on a copy where there is room (a 1 MiB tmpfs cannot hold the whole space)
      cp "$db" "$D/rerun.db"; "$BT" "${cmd[@]/#$db/$D/rerun.db}" >"$W/stdout" 2>&1; rrc=$?
      echo "  rerun with space: exit $rrc, $(grep -m1 ' resumed from the database' "$W/stdout")$(grep '^blocktune' "$W/stdout" | tail -1)"
      [ $rrc -eq 0 ] || fail "rerun exit $rrc"
    fi
    umount "$M"
  done
done
# /dev/full, where the path allows a device as the output
for path in export report; do
  case $path in export) cmd=(db --db "$D/base.db" export /dev/full) ;; report) cmd=(report --db "$D/base.db" -f csv -o /dev/full) ;; esac
  "$BT" "${cmd[@]}" >/dev/null 2>"$W/stderr"; rc=$?
  echo "/dev/full, $path: exit $rc: $(tail -1 "$W/stderr")"; [ $rc -eq 1 ] || fail "exit $rc, not 1"
  # writing to FILE.partial and renaming it over FILE would replace the device with a regular file
  if [ ! -c /dev/full ]; then fail "/dev/full was replaced by a regular file"; rm -f /dev/full; mknod -m 666 /dev/full c 1 7; fi
done
echo "failures: $FAILS"
[ $FAILS -eq 0 ]
