#!/bin/bash
# variant.sh SURROGATE_CPP OUT (absolute paths): score_strategy linked with a scratch search library whose
# surrogate.cpp is the given one. Needs a build in build/ (the replay, db and runtime archives).
set -e
src=$1; out=$2; dir=$(mktemp -d)
cd "$(git rev-parse --show-toplevel)"
for f in search/*.cpp; do
  [ "$(basename $f)" = surrogate.cpp ] && f=$src
  g++ -std=c++20 -O3 -DNDEBUG -DFMT_HEADER_ONLY=1 -Isearch/include -Idb/include -Isearch -c $f -o $dir/$(basename $f).o &
done; wait
[ "$(ls $dir/*.o | wc -l)" = 10 ] || { echo "variant.sh: a search source did not compile" >&2; exit 1; }
g++ -std=c++20 -O2 -Isearch/include -Ireplay/include -Idb/include bench/experiments/score_strategy.cpp $dir/*.o -Wl,--start-group build/replay/libblocktune_replay.a build/db/libblocktune_db.a build/db/libblocktune_runtime.a -Wl,--end-group -lsqlite3 -lz -lfmt -o $out
rm -rf $dir
