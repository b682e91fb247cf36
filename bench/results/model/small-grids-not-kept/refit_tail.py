#!/usr/bin/env python3
"""The correction refitted with the tail term's share of the throughput-bound time as one more feature (f12; give
f12 as an argument, none for today's features), at two leaf sizes (refit.py): refit_tail.py MODEL-RESIDUALS.CSV [f12]."""
import sys

import numpy as np

import refit

df = refit.load(sys.argv[1])
df["f12"] = np.log(df["tail"] / refit.throughput(df) + 1e-6)
features = refit.tr.FEATURES + sys.argv[2:]
for leaf in (200, 50):
    held_out = [f for f in refit.refit(df, refit.FITTED_ON, dict(refit.PARAMS, min_samples_leaf=leaf), features)
                if f[0] not in refit.FITTED_ON]
    print(sys.argv[2:], leaf, "held out: " + refit.summary(held_out), "| misses", refit.misses(held_out))
