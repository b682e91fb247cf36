#!/usr/bin/env bash
# Re-times given stencil configurations at 512^3 against the naive baseline and
# the same-run copy, one radius per line of "RADIUS CONFIG..." on stdin, e.g.
#   echo "4 block_x=32,block_y=8,...,carveout=-1" | BIN=.carry/me OUT=$OUT bash bench/gpu/exact.sh
# (a regression check after a change to the kernel's code).
source "$(dirname "$0")/common.sh"
DB=${DB:-/tmp/exact.db}
while read -r radius configs; do
  where=""
  for config in $configs; do
    clause=$(echo "$config" | sed -E 's/([a-z_]+)=([A-Z][A-Z]*)/\1 == "\2"/g; s/([a-z_]+)=(-?[0-9]+)/\1 == \2/g; s/,/ \&\& /g')
    where="${where:+$where || }($clause)"
  done
  step "radius $radius, 512^3" "'$BIN/blocktune' bench stencil --radius $radius --size 512 --where '$where' --db $DB --csv $OUT/exact.csv 2>&1 | grep -v '^tuning:'"
done
