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
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda" "${launcher[@]}" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
