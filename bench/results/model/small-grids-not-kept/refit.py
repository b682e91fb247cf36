#!/usr/bin/env python3
"""Refit the stencil's learned correction on a model-residuals.csv and score every stencil recording in it.

  refit.py MODEL-RESIDUALS.CSV            (written by test_model "[.residuals]" with residuals-every-stencil.patch)
  EXTRA_FIT=name,name refit.py ...         also fit on those spaces (names as the CSV's first column)

The correction is fitted as bench/experiments/train_residual.py fits it (its `fit`, the hyperparameters it chose for
kernels/stencil3d_residual.json) on the six one-step H200 spaces it is fitted on today; each line gives a recording's
Spearman and the best measured time among the model's top 10 over the optimum, FIT marking the spaces fitted on; the
last line sums up the others.
"""
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../experiments"))
import train_residual as tr  # noqa: E402

FITTED_ON = ["spaces/stencil3d_r1-512x512x512-h200.csv.gz", "spaces/stencil3d_r2-512x512x512-h200.csv.gz",
             "spaces/stencil3d_r3-512x512x512-h200.csv.gz", "spaces/stencil3d_r4-512x512x512-h200.csv.gz",
             "spaces/stencil3d_r1-256x256x256-h200.csv.gz", "spaces/stencil3d_r2-1024x1024x64-h200.csv.gz"]
PARAMS = {"fast_weight": 4, "max_iter": 400, "max_depth": 4, "min_samples_leaf": 200}

fit_on = FITTED_ON + [name for name in os.environ.get("EXTRA_FIT", "").split(",") if name]
df = pd.read_csv(sys.argv[1], sep="\t")
# tests/data's H100 files appear twice (bare and under spaces/): keep one
df = df[df.space.str.contains("stencil3d_") & ~df.space.str.startswith("stencil3d_")]
df = df[np.isfinite(df.measured_s) & (df.measured_s > 0)].copy()
df["steps"] = df.config.str.extract(r"fused_steps=(\d+)")[0].astype(float).fillna(1).values
df["y"] = np.log(df.measured_s / df.analytic_s)
df["y"] -= df.groupby("space").y.transform("mean")
model = tr.fit(df[df.space.isin(fit_on) & (df.steps == 1)], PARAMS)
correction = np.where(df.steps == 1, np.exp(model.predict(df[tr.FEATURES].values)), 1.0)
df["predicted"] = df.analytic_s * correction
held_out = []
for space, d in df.groupby("space"):
    spearman, top10 = tr.figures(d.predicted.values, d.measured_s.values)
    print(f"{space:62s} {'FIT' if space in fit_on else '   '} {spearman:.3f} {top10:.3f}")
    if space not in fit_on:
        held_out.append((spearman, top10))
print("held out: mean Spearman %.3f min %.3f; top10<=1.03: %d of %d; worst %.3f" % (
    np.mean([s for s, _ in held_out]), min(s for s, _ in held_out), sum(t <= 1.03 for _, t in held_out), len(held_out),
    max(t for _, t in held_out)))
