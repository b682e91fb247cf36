#!/bin/bash
# usage: build_scratch.sh FILE.cpp OUT_BINARY: blocktune with the search library's file of that name (surrogate.cpp,
# transfer.cpp, ...) replaced by FILE.cpp, without touching build/
set -e
cd /work/main/build
SRC=$1; OUTB=$2; T=$(mktemp -d)
c++ -DFMT_HEADER_ONLY=1 -I/work/main/search/include -I/work/main/db/include -I/work/main/search -O3 -DNDEBUG -fPIC -Wall -Wextra -std=c++20 -Wno-sign-conversion -c "$SRC" -o $T/$(basename "$SRC").o
cp search/libblocktune_search.a $T/
ar r $T/libblocktune_search.a $T/$(basename "$SRC").o
cd cli
/usr/bin/c++ -O3 -DNDEBUG CMakeFiles/blocktune.dir/blocktune.cpp.o -o "$OUTB" -L/usr/local/cuda/lib -Wl,-rpath,/usr/local/cuda/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib libblocktune_cli.a ../bench/libblocktune_bench.a ../kernels/libblocktune_kernels.a ../tuner/libblocktune_tuner.a ../tuner/cuda/libblocktune_cuda.a /usr/local/cuda/lib/libnvrtc.so /usr/local/cuda/lib/stubs/libcuda.so ../tuner/description/libblocktune_description.a libblocktune_db_cli.a libblocktune_report_cli.a ../report/libblocktune_report.a ../model/libblocktune_model.a libblocktune_replay_cli.a ../replay/libblocktune_replay.a ../db/libblocktune_db.a $T/libblocktune_search.a ../db/libblocktune_runtime.a /usr/lib/x86_64-linux-gnu/libsqlite3.a -ldl -lm /usr/lib/x86_64-linux-gnu/libz.a
rm -rf $T
