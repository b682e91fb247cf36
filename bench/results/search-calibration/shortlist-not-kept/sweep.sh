#!/bin/bash
# usage: sweep.sh NAME [VAR=VALUE ...]: the scratch build (/tmp/s21/blocktune-env, constants from BT_<name>) on the
# example-kernel recordings of every read set (213 on 2026-11-28), 100 seeds, corrected as tune runs it
# (NO_MODEL=1 or UNCORRECTED=1 for the other runs); writes /tmp/s21/sw-NAME.json
cd /work/main
name=$1; shift
P='*/sum_of_squares-* */transpose-* */conv2d_5x5-* */matmul_tiled-*'
env "$@" PREDICTIONS=/tmp/today-all-18 SEEDS=${SEEDS:-100} python3 bench/results/search-calibration/size-transfer/hedge-not-kept/run_corrected.py /tmp/s21/blocktune-env /tmp/s21/sw-$name.json $P 2>&1 | grep spaces
