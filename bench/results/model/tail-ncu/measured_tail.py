#!/usr/bin/env python3
"""The tail term in the measured form (README.md), emulated on a model-residuals.csv with every stencil recording
(../small-grids-not-kept/README.md says how to write one), the correction refitted: measured_tail.py CSV."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../small-grids-not-kept"))
import refit  # noqa: E402

df = refit.load(sys.argv[1])
throughput = refit.throughput(df)
waves = np.exp(df.f9)
flat = np.where(waves <= 4, 0.136 * throughput, 0.5 * throughput / waves)  # an idle share of 0.12 up to four waves
partial = np.where((waves > 1) & (waves < 2), (np.ceil(waves) - waves) / waves * 0.5, 0) * throughput
for label, tail in (("today", 0.5 * throughput / np.maximum(waves, 1)), ("flat", flat), ("flat + partial wave", flat + partial)):
    variant = df.copy()
    variant["analytic_s"] = df.analytic_s - df["tail"] + tail
    print(refit.variant_line(label, variant))
