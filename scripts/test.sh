#!/usr/bin/env bash
# The test command: installs what is missing (with what only the tests use),
# builds, and runs the whole CPU suite through ctest. GPU tests (label gpu)
# skip with a message where no GPU is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
bash scripts/build.sh
ctest --test-dir "${BLOCKTUNE_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" "$@"
