#!/usr/bin/env bash
# Time to first measurement (issue 15): blocktune and Kernel Tuner 1.5 tune the
# same kernels on the same GPU, one after the other in one run, each from a
# cold compile cache and an empty database, for $SECONDS_BUDGET seconds each.
# Each writes a timeline (blocktune's --trace, Kernel Tuner's results with
# their timestamps); bench/anchors/first_measurement.py reads both.
#   BIN=.carry/bin OUT=$OUT SECONDS_BUDGET=120 bash bench/gpu/first-measurement.sh "stencil3d_r1 gemm hotspot"
# Needs Kernel Tuner on PYTHONPATH (bench/anchors/README.md: the wheels) and
# the public kernels under .carry/public (bench/anchors/SOURCES.md).
source "$(dirname "$0")/common.sh"
budget=${SECONDS_BUDGET:-120}
here=$(cd "$(dirname "$0")/../.." && pwd)

# blocktune's arguments per kernel: the same space and problem as the Kernel
# Tuner side (the stencil as its spec, whose one fused step is Kernel Tuner's
# space; blocktune also tunes the carveout, which Kernel Tuner cannot set).
blocktune_args() {
  case $1 in
    stencil3d_r1) echo "--spec $here/examples/specs/stencil3d/spec.json --problem 512x512x512" ;;
    gemm) echo "--spec $here/bench/anchors/specs/gemm/spec.json --problem 4096x4096x4096" ;;
    hotspot) echo "--spec $here/bench/anchors/specs/hotspot/spec.json --problem 4096x4096" ;;
    pnpoly) echo "--spec $here/bench/anchors/specs/pnpoly/spec.json --problem 20000000" ;;
    convolution) echo "--spec $here/bench/anchors/specs/convolution/spec.json --problem 4096x4096" ;;
    *) echo "unknown kernel $1" >&2; return 1 ;;
  esac
}

{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv"
  for kernel in $1; do
    args=$(blocktune_args "$kernel") || continue
    work=$(mktemp -d)
    # Cold: no variant cache, no database, no CuPy kernel cache.
    step "blocktune: $kernel, $budget s" \
      "start=\$(date +%s.%N); echo \"start \$start\" > $OUT/bt-$kernel.start;
       BLOCKTUNE_CACHE_DIR=$work/variants timeout -s TERM $((budget + 60)) $BIN/blocktune tune $args --db $work/bt.db \
         --max-seconds $budget --trace $OUT/bt-$kernel.jsonl 2>&1 | tail -25"
    step "Kernel Tuner: $kernel, $budget s" \
      "CUPY_CACHE_DIR=$work/cupy timeout -s TERM $((budget + 120)) python3 $here/bench/anchors/kt_budget.py $kernel --seconds $budget \
         --out $OUT/kt-$kernel.json 2>&1 | tail -15"
    rm -rf "$work"
  done
  # Each tool's best configurations timed again by one harness (blocktune measure).
  measure_args=$(for kernel in $1; do printf '"%s": "%s",' "$kernel" "$(blocktune_args "$kernel")"; done)
  measure_args=$(python3 -c "import json,sys; print(json.dumps({k: v.split() for k, v in json.loads('{' + sys.argv[1].rstrip(',') + '}').items()}))" "$measure_args")
  step "side by side" "python3 $here/bench/anchors/first_measurement.py $OUT $1 --measure $BIN/blocktune --measure-args '$measure_args'"
} 2>&1 | tee "$OUT/first-measurement-$(date +%s).log"
