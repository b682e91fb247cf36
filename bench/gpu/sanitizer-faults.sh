#!/usr/bin/env bash
# Issue 17: the fault kernels tuned under compute-sanitizer (memcheck), every
# measurement worker sanitized too, so that each fault the sanitizer sees can be
# matched with the configuration blocktune recorded it for.
#   BIN=.carry/bin OUT=$OUT bash bench/gpu/sanitizer-faults.sh
source "$(dirname "$0")/common.sh"
export BLOCKTUNE_WORKER=$PWD/$BIN/blocktune-worker
db=/tmp/faults-sanitized.db
rm -f $db
{
  date -u
  step "GPU" "nvidia-smi --query-gpu=name,uuid,driver_version --format=csv"
  step "compute-sanitizer" "compute-sanitizer --version | head -2"
  step "tune the fault kernels under memcheck, workers included" \
    "compute-sanitizer --tool memcheck --target-processes all --log-file $OUT/memcheck-%p.log \
       $BIN/blocktune tune faults --problem 4194304 --timeout-floor 20 --db $db 2>&1 | tail -20"
  step "what blocktune recorded, per configuration" \
    "$BIN/blocktune report --db $db -f csv | python3 -c 'import csv,sys; [print(r[\"config\"], r[\"outcome\"], (r.get(\"message\") or \"\")[:90].replace(chr(10),\" \")) for r in csv.DictReader(sys.stdin)]'"
  step "what the sanitizer saw, per process" \
    "for f in $OUT/memcheck-*.log; do echo \"-- \$f\"; grep -E 'Invalid|Program hit|ERROR SUMMARY|Unspecified|Misaligned|cudaErrorIllegal|CUDA_ERROR' \$f | sort | uniq -c | head -8; done"
} 2>&1 | tee "$OUT/sanitizer-faults.log"
