#!/bin/sh
# An installed database read by a user who may not write beside it: as the
# unprivileged user 65534, `blocktune best`, `db list` and `report` read a
# WAL database in a 0755 folder owned by root, with no -wal or -shm there;
# nothing is created beside it; a file that user may not read is an error that
# says so. Needs root (to run as another user) and setpriv: skips (77) without.
#
# usage: read_only_user.sh BLOCKTUNE SOURCE_DATABASE
set -eu
blocktune=$1
source_db=$2

if [ "$(id -u)" != 0 ]; then echo "SKIPPED: not running as root, so cannot run as another user"; exit 77; fi
if ! command -v setpriv >/dev/null; then echo "SKIPPED: setpriv (util-linux) is missing"; exit 77; fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_nobody test -x "$blocktune"; then echo "SKIPPED: user 65534 cannot run $blocktune (a folder on its path is private)"; exit 77; fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
db=$dir/tuning.db
"$blocktune" db export --db "$source_db" "$dir/export.json" >/dev/null
"$blocktune" db import --db "$db" "$dir/export.json" >/dev/null  # a WAL database of the current schema
chmod 0644 "$db"
for leftover in "$db-wal" "$db-shm"; do
  if [ -e "$leftover" ]; then echo "FAIL: $leftover exists before the test"; exit 1; fi
done

fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }
expect() {  # expect CODE TEXT COMMAND...: run as user 65534
  code=$1 text=$2
  shift 2
  status=0
  as_nobody "$blocktune" "$@" >"$dir/out" 2>&1 || status=$?
  [ "$status" = "$code" ] || fail "blocktune $* exited $status, not $code"
  grep -qF -- "$text" "$dir/out" || fail "blocktune $* did not print '$text'"
  echo "ok: blocktune $* exits $code"
}

expect 0 "block_x=" best stencil3d_r1 --problem 512x512x512 --arch sm_90 --db "$db"
expect 0 "schema 8" db list --db "$db"
expect 0 "stencil3d_r1" report -f csv --db "$db"
expect 3 "no configuration" best no_such_kernel --problem 512x512x512 --arch sm_90 --db "$db"
for leftover in "$db-wal" "$db-shm"; do
  if [ -e "$leftover" ]; then echo "FAIL: reading created $leftover"; exit 1; fi
done

chmod 0600 "$db"
expect 1 "cannot be read (Permission denied)" db list --db "$db"
expect 1 "does not exist" db list --db "$dir/missing.db"
