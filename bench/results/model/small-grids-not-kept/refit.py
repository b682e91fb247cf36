#!/usr/bin/env python3
"""Refit the stencil's learned correction on a model-residuals.csv and score every stencil recording in it.

  refit.py MODEL-RESIDUALS.CSV            (written by test_model "[.residuals]" with residuals-every-stencil.patch)
  EXTRA_FIT=name,name refit.py ...         also fit on those spaces (names as the CSV's first column)

The correction is fitted as bench/experiments/train_residual.py fits it (its `fit`, the hyperparameters it chose for
kernels/stencil3d_residual.json) on the six one-step H200 spaces it is fitted on today; each line gives a recording's
Spearman and the best measured time among the model's top 10 over the optimum, FIT marking the spaces fitted on; the
last line sums up the others. Its functions serve the other scripts here and ../tail-ncu/measured_tail.py.
"""
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../experiments"))
import train_residual as tr  # noqa: E402

FITTED_ON = ["spaces/stencil3d_r1-512x512x512-h200.csv.gz", "spaces/stencil3d_r2-512x512x512-h200.csv.gz",
             "spaces/stencil3d_r3-512x512x512-h200.csv.gz", "spaces/stencil3d_r4-512x512x512-h200.csv.gz",
             "spaces/stencil3d_r1-256x256x256-h200.csv.gz", "spaces/stencil3d_r2-1024x1024x64-h200.csv.gz"]
PARAMS = {"fast_weight": 4, "max_iter": 400, "max_depth": 4, "min_samples_leaf": 200}


def load(path):
    """The stencil rows that ran, each recording once (tests/data's H100 files appear bare and under spaces/)."""
    df = pd.read_csv(path, sep="\t")
    df = df[df.space.str.contains("stencil3d_") & ~df.space.str.startswith("stencil3d_")]
    df = df[np.isfinite(df.measured_s) & (df.measured_s > 0)].copy()
    df["steps"] = df.config.str.extract(r"fused_steps=(\d+)")[0].astype(float).fillna(1).values
    return df


def throughput(df):
    """The throughput-bound time of each row's terms: model.cpp's soft maximum (kOverlapExponent 6)."""
    return (df.dram**6 + df.l2**6 + df.l1**6 + df.shared**6 + df.issue**6) ** (1 / 6)


def refit(df, fit_on, params=PARAMS, features=tuple(tr.FEATURES)):
    """Per recording (space, Spearman, best of the top 10 / optimum), the correction refitted on `fit_on` with
    train_residual.py's `fit` (`params`) over the columns `features`."""
    df = df.copy()
    df["y"] = np.log(df.measured_s / df.analytic_s)
    df["y"] -= df.groupby("space").y.transform("mean")
    trained_on, tr.FEATURES = tr.FEATURES, list(features)  # fit() reads the module's feature columns
    try:
        model = tr.fit(df[df.space.isin(fit_on) & (df.steps == 1)], params)
    finally:
        tr.FEATURES = trained_on
    df["predicted"] = df.analytic_s * np.where(df.steps == 1, np.exp(model.predict(df[list(features)].values)), 1.0)
    return [(space,) + tuple(tr.figures(d.predicted.values, d.measured_s.values)) for space, d in df.groupby("space")]


def analytic_figures(df):
    """Per recording (space, Spearman, best of the top 10 / optimum) of the analytic model alone."""
    return [(space,) + tuple(tr.figures(d.analytic_s.values, d.measured_s.values)) for space, d in df.groupby("space")]


def misses(figures):
    return [(space.split("/")[-1][:26], round(top10, 3)) for space, _, top10 in figures if top10 > 1.03]


def summary(figures):
    return "mean Spearman %.3f min %.3f; top10<=1.03: %d of %d; worst %.3f" % (
        np.mean([s for _, s, _ in figures]), min(s for _, s, _ in figures), sum(t <= 1.03 for _, _, t in figures),
        len(figures), max(t for _, _, t in figures))


def variant_line(label, df):
    """One line for an emulated variant (df with its analytic_s): the analytic model alone on every recording, then
    the correction refitted on the six and scored on the others, with the misses."""
    held_out = [f for f in refit(df, FITTED_ON) if f[0] not in FITTED_ON]
    return f"{label} analytic: {summary(analytic_figures(df))} | corrected, held out: {summary(held_out)} | misses {misses(held_out)}"


def main():
    fit_on = FITTED_ON + [name for name in os.environ.get("EXTRA_FIT", "").split(",") if name]
    figures = refit(load(sys.argv[1]), fit_on)
    for space, spearman, top10 in figures:
        print(f"{space:62s} {'FIT' if space in fit_on else '   '} {spearman:.3f} {top10:.3f}")
    print("held out: " + summary([f for f in figures if f[0] not in fit_on]))


if __name__ == "__main__":
    main()
