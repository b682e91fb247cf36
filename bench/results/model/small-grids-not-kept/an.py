#!/usr/bin/env python3
"""The analytic model alone (no learned correction) on every stencil recording of each model-residuals.csv given."""
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../experiments"))
import train_residual as tr  # noqa: E402

for path in sys.argv[1:]:
    df = pd.read_csv(path, sep="\t")
    df = df[df.space.str.contains("stencil3d_") & ~df.space.str.startswith("stencil3d_") & np.isfinite(df.measured_s)]
    figures = [tr.figures(d.analytic_s.values, d.measured_s.values) for _, d in df.groupby("space")]
    print(path, "analytic: mean Spearman %.3f, top10<=1.03 %d of %d, worst %.3f" % (
        np.mean([s for s, _ in figures]), sum(t <= 1.03 for _, t in figures), len(figures), max(t for _, t in figures)))
