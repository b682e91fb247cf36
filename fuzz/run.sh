#!/usr/bin/env bash
# Builds one of the fuzzers with clang (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer) into build-fuzz/ and runs it for SECONDS
# (default 600), starting from its hand-written seeds and its committed corpus:
#
#   spec    the spec parser and validator     fuzz/seeds         fuzz/corpus
#   cli     the command line (argument lists)  fuzz/seeds-cli     fuzz/corpus-cli
#   source  kernel sources, up to NVRTC        fuzz/seeds-source  fuzz/corpus-source
#
# Afterwards the corpus is replaced by a minimal corpus that covers every edge
# the old one and this run's new inputs cover (-merge=1 into a fresh folder;
# -use_counters=0 keeps it small by ignoring hit counts). A crash, hang or leak
# stops the run with a non-zero status and leaves the input as crash-*,
# timeout-* or leak-* in build-fuzz/.
#
#   bash fuzz/run.sh cli 1800
#   bash fuzz/run.sh 600          # the spec fuzzer, as before
set -euo pipefail
cd "$(dirname "$0")/.."
fuzzer_name=spec
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ ]]; then fuzzer_name=$1; shift; fi
seconds=${1:-600}
build=${BLOCKTUNE_FUZZ_BUILD_DIR:-build-fuzz}
# The CMake project to configure: blocktune itself, or a project that adds it.
source_dir=${BLOCKTUNE_FUZZ_SOURCE_DIR:-.}
sanitizers="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

# -close_fd_mask=3: the CLI's output goes to /dev/null (libFuzzer and the
# sanitizers keep a copy of stderr for their reports). -timeout: a plan may
# compile a few configurations with NVRTC; a source is compiled once.
case $fuzzer_name in
  spec) seeds=fuzz/seeds corpus=fuzz/corpus dict=fuzz/spec.dict flags="-timeout=10 -max_len=4096" ;;
  cli) seeds=fuzz/seeds-cli corpus=fuzz/corpus-cli dict=fuzz/cli.dict flags="-timeout=30 -max_len=512 -close_fd_mask=3" ;;
  source) seeds=fuzz/seeds-source corpus=fuzz/corpus-source dict=fuzz/source.dict flags="-timeout=20 -max_len=4096" ;;  # NVRTC crashes: build-fuzz/fuzz/nvrtc-crashes
  *) echo "usage: bash fuzz/run.sh [spec|cli|source] [SECONDS]" >&2; exit 2 ;;
esac
target=${fuzzer_name}_fuzzer

# --as-needed drops the driver stub that CUDA::nvrtc drags in: libcuda is dlopen'ed.
cmake -S "$source_dir" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitizers" -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" -DBLOCKTUNE_BUILD_FUZZER=ON \
  -DBLOCKTUNE_BUILD_TESTS=OFF -DBLOCKTUNE_BUILD_BENCHMARKS=OFF -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" >/dev/null
cmake --build "$build" --target "$target" -j "$(nproc)"
fuzzer=$(realpath "$(find "$build" -name "$target" -type f -perm -u+x | head -n 1)")

mkdir -p "$corpus"
build_abs=$(realpath "$build")
work=$(mktemp -d)
fresh=$(mktemp -d)
trap 'rm -rf "$work" "$fresh"' EXIT
cp -r "$corpus"/. "$work"/
echo "$target -max_total_time=$seconds $flags -dict=$dict -print_final_stats=1 <copy of $corpus> $seeds"
# -artifact_prefix: the cli and source fuzzers change directory.
(cd "$build" && "$fuzzer" -max_total_time="$seconds" $flags -artifact_prefix="$build_abs/" -dict="$OLDPWD/$dict" \
  -print_final_stats=1 "$work" "$OLDPWD/$seeds" </dev/null) 2>&1 | tee "$build/fuzz-$fuzzer_name.log"

"$fuzzer" -merge=1 -use_counters=0 $flags "$fresh" "$corpus" "$work" "$seeds" </dev/null 2>&1 | tail -n 1
rm -rf "$corpus"
cp -r "$fresh" "$corpus"
echo "$corpus: $(ls "$corpus" | wc -l) inputs, $(du -sh "$corpus" | cut -f1)"
