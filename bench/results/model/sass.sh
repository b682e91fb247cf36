#!/usr/bin/env bash
# One stencil variant's registers, spills (ptxas -v) and SASS, without a GPU:
#   bash bench/results/model/sass.sh R STRATEGY ZLOOP VX PY BLOCK_X BLOCK_Y BLOCK_Z Z_CHUNK [OUTDIR]
# e.g. bash bench/results/model/sass.sh 1 CSL REG 4 4 128 1 1 8
# Compiles kernels/stencil3d.cu for sm_90 with nvcc as the tuner's defines do
# (FP32, one fused step) and disassembles it with nvdisasm, which the CUDA
# toolkit here lacks: NVDISASM= a copy of it (pip download --no-deps
# nvidia-cuda-nvdisasm, unzipped: nvidia/cu13/bin/nvdisasm).
set -euo pipefail
R=$1 S=$2 Z=$3 VX=$4 PY=$5 BX=$6 BY=$7 BZ=$8 ZC=$9 out=${10:-/tmp/stencil-sass}
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
name=r${R}_${S}_${Z}_vx${VX}_py${PY}_${BX}x${BY}x${BZ}_z${ZC}
input="const float*"
[ "$S" != BASE ] && [ "$S" != COMP ] && input="const float* __restrict__"
printf '#include "%s/kernels/stencil3d.cu"\ntemplate __global__ void stencil3d<%s>(%s, float*, const float*, int, int, int);\n' \
  "$root" "$R" "$input" > "$out/$name.cu"
"${NVCC:-nvcc}" -cubin -arch=sm_90 -O3 -std=c++17 -DBLOCK_X="$BX" -DBLOCK_Y="$BY" -DBLOCK_Z="$BZ" -DSTRATEGY="$S" -DZLOOP="$Z" \
  -DZ_CHUNK="$ZC" -DVX="$VX" -DPY="$PY" -DFUSED_STEPS=1 -Xptxas -v "$out/$name.cu" -o "$out/$name.cubin" 2>&1 | grep -E "registers|spill"
if [ -n "${NVDISASM:-}" ]; then
  "$NVDISASM" -c "$out/$name.cubin" > "$out/$name.sass"
  echo "$out/$name.sass: global loads (LDG), stores (STG), shared loads (LDS), in program order:"
  grep -oE "(LDG|STG|LDS|LDGSTS|BAR)[A-Z0-9.]*" "$out/$name.sass" | sed 's/\..*//' | uniq -c | tr '\n' ' '
  echo
fi
