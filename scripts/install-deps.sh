#!/usr/bin/env bash
# Installs the Debian 12 packages blocktune builds with, where they are missing;
# with --test also those only the tests use (python3-jsonschema for the T4
# schema check, Chromium for the HTML report check, doxygen for the API page),
# so that tuning never waits for a browser. Needs root for apt-get; without root it lists what to install
# and fails.
set -euo pipefail

packages=(cmake g++ make libsqlite3-dev libfmt-dev libcli11-dev catch2 nlohmann-json3-dev libbenchmark-dev zlib1g-dev sqlite3
          python3)
test_packages=(python3-jsonschema chromium doxygen)
case "${1:-}" in
  "") ;;
  --test) packages+=("${test_packages[@]}") ;;
  *) echo "usage: install-deps.sh [--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "blocktune: missing Debian packages: ${missing[*]}" >&2
    echo "blocktune: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "blocktune: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -x ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc && ! -f ${CUDA_HOME:-/usr/local/cuda}/include/nvrtc.h ]]; then
  echo "blocktune: the CUDA toolkit (13.x) was not found at ${CUDA_HOME:-/usr/local/cuda}; set CUDA_HOME" >&2
  exit 1
fi
