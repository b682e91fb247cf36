#!/bin/bash
# The five replays of README.md, 100 seeds each on the 241 example-kernel recordings (about 25 s each), then gzip.
# /tmp/blocktune-floor: cp transfer-with-floor.cpp.txt /tmp/transfer.cpp && bash ../../shortlist-not-kept/build_scratch.sh /tmp/transfer.cpp /tmp/blocktune-floor
cd /work/main
D=bench/results/search-calibration/size-transfer/floor-not-kept
R=bench/results/search-calibration/size-transfer/hedge-not-kept/run_corrected.py
P='*/sum_of_squares-* */transpose-* */conv2d_5x5-* */matmul_tiled-*'
export PREDICTIONS=/tmp/today-all-21 SEEDS=100
NO_MODEL=1 python3 $R build/cli/blocktune $D/no-model.json $P
python3 $R build/cli/blocktune $D/base.json $P
for e in 0.01 0.02 0.03; do BLOCKTUNE_EXP_FLOOR=$e python3 $R /tmp/blocktune-floor $D/floor-$e.json $P; done
UNCORRECTED=1 python3 $R build/cli/blocktune $D/as-recorded.json $P
(cd $D && python3 /work/main/bench/experiments/compare_replays.py no-model.json base.json floor-0.01.json floor-0.02.json floor-0.03.json as-recorded.json > comparison.txt && gzip -f *.json)
