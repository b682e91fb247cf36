#!/usr/bin/env bash
# The four example kernels at 35 problem sizes, each space measured completely twice (record-repeats.sh) by a
# blocktune whose default flushes the L2 before each timed launch (schema 7): recorded spaces for judging the
# default search on flushed times (bench/results/spaces/h200-flushed-1/).
#   BIN=.carry/gpu/bin OUT=/tmp/out LIMIT=540 bash bench/experiments/record_flushed_set.sh
R=examples/specs/reduction/spec.json T=examples/specs/transpose/spec.json C=examples/specs/conv2d/spec.json M=examples/specs/matmul/spec.json
items=""
for n in 1 2 3 5 7 9 12 18 24 36 48 64 96 128 160; do items="$items $R:$((n * 1048576))"; done
for s in 1024x1024 2048x2048 3072x3072 4096x4096 2048x8192 8192x2048 4608x2304 3584x3584 6144x3072; do items="$items $T:$s"; done
for s in 2048x2048 4096x2048 4096x4096 6144x2048 8192x1024 7168x1536; do items="$items $C:$s"; done
for s in 1024x1024x1024 2048x1024x1024 1024x2048x1024 2048x2048x2048 1536x1536x1536; do items="$items $M:$s"; done
REPEATS=2 bash "$(dirname "$0")/../gpu/record-repeats.sh" "$items"
