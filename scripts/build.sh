#!/usr/bin/env bash
# Configures and builds blocktune into ${BLOCKTUNE_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${BLOCKTUNE_BUILD_DIR:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
