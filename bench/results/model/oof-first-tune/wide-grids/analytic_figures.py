#!/usr/bin/env python3
"""The analytic model's own figures (no correction) per one-step stencil recording, for two row files of
test_model "[.residuals-stencil]" (as built, and with whole_waves_tail_rows.py's tail): mean Spearman and top 10,
and how many recordings have a configuration within 3% of the optimum in the model's top 10.

  analytic_figures.py model-residuals.csv quant.csv
"""
import sys

import pandas as pd
from scipy.stats import spearmanr


def figures(path):
    d = pd.read_csv(path, sep="\t", usecols=["space", "config", "measured_s", "analytic_s"])
    d = d[d.space.str.startswith("stencil3d_") & (d.measured_s > 0) & ~d.config.str.contains("fused_steps=[2-9]")]
    return pd.DataFrame({space: (spearmanr(g.analytic_s, g.measured_s)[0],
                                 g.nsmallest(10, "analytic_s").measured_s.min() / g.measured_s.min())
                         for space, g in d.groupby("space")}, index=["spearman", "top10"]).T


both = pd.merge(figures(sys.argv[1]), figures(sys.argv[2]), left_index=True, right_index=True, suffixes=("_built", "_other"))
print(both.mean().to_string())
print("within 3%:", (both[["top10_built", "top10_other"]] <= 1.03).sum().to_dict(), "of", len(both))
