# The default strategy on the 18 held-out H200 recordings with the model of the staging-rounds commit (matmul's
# spec), 30 seeds. "after" and "before" are copies of the recordings with the predictions of the model after and
# before that change, written by `test_model "[.held-out-predictions]"` run in folders after/ and before/ (with the
# spec of the commit, and of its parent); "none" the default strategy without a model, "random" random search.
# Run from the folder holding after/ and before/, with B the score tool built as in bench/experiments/score_strategy.cpp
# and HO the repository's bench/results/spaces.
B=/tmp/score_strategy; HO=/work/main/bench/results/spaces; R=/work/main/bench/results/search-calibration/staging-rounds
$B surrogate model 30 after/*.csv.gz > $R/model-after.txt
$B surrogate model 30 before/*.csv.gz > $R/model-before.txt
$B surrogate none 30 $HO/h200-held-out-*/*.csv.gz > $R/none.txt
$B random none 30 $HO/h200-held-out-*/*.csv.gz > $R/random.txt
