#!/usr/bin/env python3
"""Rows of test_model "[.residuals-stencil]" with the analytic time's tail term replaced (an experiment: README.md).

model/model.cpp charges the last blocks half the throughput-bound time over the waves (0.5 x T / waves, all of T/2
with one wave or less); `quant` charges what a last, partly filled wave leaves idle, T x (ceil(waves) - waves) /
waves (as before with one wave or less). The waves are exp(f9) (log_waves), T is
recovered from the stored tail.

  whole_waves_tail_rows.py model-residuals.csv quant.csv quant
"""
import sys, numpy as np, pandas as pd
src, dst, kind = sys.argv[1:4]
first = True
for c in pd.read_csv(src, sep="\t", chunksize=300000):
    fill = np.exp(c.f9.values)
    throughput = c["tail"].values * 2 * np.maximum(fill, 1)
    if kind != "quant":
        sys.exit(f"unknown tail {kind!r}")
    new = np.where(fill > 1, throughput * (np.ceil(fill) - fill) / fill, 0.5 * throughput)
    c["analytic_s"] = c.analytic_s - c["tail"] + new
    c["tail"] = new
    c.to_csv(dst, sep="\t", index=False, header=first, mode="w" if first else "a", float_format="%.17g")
    first = False
