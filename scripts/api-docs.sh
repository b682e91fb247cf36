#!/usr/bin/env bash
# The API page of the installed headers (docs/Doxyfile), into
# ${BLOCKTUNE_API_DOCS:-${BLOCKTUNE_BUILD_DIR:-build}/api-docs}/html. Fails on
# any doxygen warning: an undocumented type or function of the API, a broken
# reference. Needs doxygen (scripts/install-deps.sh --test installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v doxygen >/dev/null; then
  echo "blocktune: doxygen is not installed (scripts/install-deps.sh --test installs it)" >&2
  exit 1
fi
out=${BLOCKTUNE_API_DOCS:-${BLOCKTUNE_BUILD_DIR:-build}/api-docs}
mkdir -p "$out"
BLOCKTUNE_API_DOCS=$(cd "$out" && pwd) doxygen docs/Doxyfile
echo "blocktune: API page: $out/html/index.html"
