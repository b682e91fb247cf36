cd /work/main   # the repository root; outputs under bench/results/search-calibration/start-up/
B=/tmp/score_strategy; HO=bench/results/spaces/h200-held-out-2; T=copies  # test_model "[.held-out-predictions]" run in a folder "copies"
TODAY="$T/blur-16777216-h200.csv.gz $T/conv2d_5x5-8192x1024-h200.csv.gz $T/matmul_tiled-2048x512x1024-h200.csv.gz $T/stencil3d_r2-256x512x128-h200.csv.gz $T/stencil3d_r3-256x256x256-h200.csv.gz $T/sum_of_squares-1048576-h200.csv.gz $T/transpose-2048x8192-h200.csv.gz"
$B surrogate model 30 $HO/*.csv.gz > held-out-2/stored.txt 2>&1 &
$B surrogate model 30 $TODAY > held-out-2/today.txt 2>&1
wait
$B surrogate none 30 $HO/*.csv.gz > held-out-2/none.txt 2>&1 &
$B surrogate none 30 --no-default $HO/*.csv.gz > held-out-2/none-nd.txt 2>&1
wait
$B surrogate model 30 --no-default $TODAY > held-out-2/today-nd.txt 2>&1 &
$B random none 30 $HO/*.csv.gz > held-out-2/random.txt 2>&1
wait
