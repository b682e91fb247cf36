#!/usr/bin/env bash
# Configures and builds blocktune into ${BLOCKTUNE_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${BLOCKTUNE_BUILD_DIR:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
# ccache, where installed, makes rebuilds in other checkouts of the same sources cheap.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Warnings are errors in every build these scripts make, tune.sh's and
# test.sh's alike: compile flags are part of every object's build rule, so a
# flag that only the test command added would recompile nearly every object
# when tests follow a tune. Debian 12's g++ builds blocktune without warnings
# (CI checks it); the CMake option stays off for other compilers and for
# projects that add blocktune as a subdirectory. Arguments given here come
# last and win, e.g. -DBLOCKTUNE_WERROR=OFF.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda" -DBLOCKTUNE_WERROR=ON "${launcher[@]}" "$@" \
  >/dev/null
cmake --build "$build" -j "$(nproc)"
