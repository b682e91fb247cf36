#!/usr/bin/env bash
# The main job: tune the default kernel on GPU 0 into the default database and
# print the winner. With no GPU it says so and runs the GPU-free plan instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec "${BLOCKTUNE_BUILD_DIR:-build}/cli/blocktune" tune --device 0 --or-plan "$@"
