#!/usr/bin/env bash
# The default strategy on a folder of recorded spaces (its first recordings and repeat-2/): as recorded (each with
# its own predictions: a first tune), corrected by the nearest other size among them (as tune runs it with the
# others in its database: replay corrects only by recordings timed alike), and --no-model; SEEDS seeds each, then
# compare_replays.py. Used for the recordings timed with the L2 flushed (bench/results/spaces/h200-flushed-1/).
#   SEEDS=30 bash bench/experiments/flushed_replays.sh bench/results/spaces/h200-flushed-1 OUT_DIR
set -euo pipefail
folder=$1 out=$2
mkdir -p "$out"
mapfile -t files < <(ls "$folder"/*.csv.gz "$folder"/repeat-*/*.csv.gz)
spaces=() sizes=()
for f in "${files[@]}"; do spaces+=(--space "$f"); sizes+=(--sizes-from "$f"); done
run() { build/cli/blocktune replay run "${spaces[@]}" --strategies surrogate --seeds "${SEEDS:-30}" --json "$@" > /dev/null; }
run "$out/as-recorded.json"
run "$out/corrected.json" "${sizes[@]}"
run "$out/no-model.json" --no-model
python3 bench/experiments/compare_replays.py "$out/no-model.json" "$out/as-recorded.json" "$out/corrected.json"
