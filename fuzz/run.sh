#!/usr/bin/env bash
# Builds the spec fuzzer with clang (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer) into build-fuzz/ and runs it for SECONDS
# (default 600), starting from the hand-written fuzz/seeds and the committed
# fuzz/corpus. Afterwards fuzz/corpus is replaced by a minimal corpus that
# covers every edge the old one and this run's new inputs cover (-merge=1 into
# a fresh folder; -use_counters=0 keeps it small by ignoring hit counts). A
# crash, hang (10 s) or leak stops the run with a non-zero status and leaves
# the input as crash-*, timeout-* or leak-* in build-fuzz/.
#
#   bash fuzz/run.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
build=${BLOCKTUNE_FUZZ_BUILD_DIR:-build-fuzz}
# The CMake project to configure: blocktune itself, or a project that adds it.
source_dir=${BLOCKTUNE_FUZZ_SOURCE_DIR:-.}
sanitizers="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

# --as-needed drops the driver stub that CUDA::nvrtc drags in: libcuda is dlopen'ed.
cmake -S "$source_dir" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitizers" -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" -DBLOCKTUNE_BUILD_FUZZER=ON \
  -DBLOCKTUNE_BUILD_TESTS=OFF -DBLOCKTUNE_BUILD_BENCHMARKS=OFF -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" >/dev/null
cmake --build "$build" --target spec_fuzzer -j "$(nproc)"
fuzzer=$(realpath "$(find "$build" -name spec_fuzzer -type f -perm -u+x | head -n 1)")

mkdir -p fuzz/corpus
work=$(mktemp -d)
fresh=$(mktemp -d)
trap 'rm -rf "$work" "$fresh"' EXIT
cp -r fuzz/corpus/. "$work"/
echo "$fuzzer -max_total_time=$seconds -timeout=10 -max_len=4096 -dict=fuzz/spec.dict -print_final_stats=1 <copy of fuzz/corpus> fuzz/seeds"
(cd "$build" && "$fuzzer" -max_total_time="$seconds" -timeout=10 -max_len=4096 -dict="$OLDPWD/fuzz/spec.dict" \
  -print_final_stats=1 "$work" "$OLDPWD/fuzz/seeds") 2>&1 | tee "$build/fuzz.log"

"$fuzzer" -merge=1 -use_counters=0 "$fresh" fuzz/corpus "$work" fuzz/seeds 2>&1 | tail -n 1
rm -rf fuzz/corpus
cp -r "$fresh" fuzz/corpus
echo "fuzz/corpus: $(ls fuzz/corpus | wc -l) inputs, $(du -sh fuzz/corpus | cut -f1)"
