# The default strategy on the fifth held-out set (six H100 recordings, bench/results/spaces/h100-held-out-5/),
# 30 seeds: "model" with the predictions `tune` stored while recording (today's model: no model change since),
# "none" the default strategy without a model, "random" random search. B is the score tool built as in
# bench/experiments/score_strategy.cpp; run from the repository root.
B=/tmp/score_strategy; H=bench/results/spaces/h100-held-out-5; R=bench/results/search-calibration/held-out-5
$B surrogate model 30 $H/*.csv.gz > $R/model.txt
$B surrogate none 30 $H/*.csv.gz > $R/none.txt
$B random none 30 $H/*.csv.gz > $R/random.txt
