#!/usr/bin/env python3
"""A z loop's start-up as extra steps of its latency term (2, R or 2R more per block for zloop=REG), emulated on a
model-residuals.csv with every stencil recording, the correction refitted (refit.py): prologue_steps.py CSV."""
import sys

import numpy as np

import refit

df = refit.load(sys.argv[1])
z_chunk = df.config.str.extract(r"z_chunk=(\d+)")[0].astype(float)
radius = df.space.str.extract(r"stencil3d_r(\d)")[0].astype(float)
register_queue = df.config.str.contains("zloop=REG")
for label, extra in (("today", 0 * radius), ("+2 steps", 2 + 0 * radius), ("+R steps", radius), ("+2R steps", 2 * radius)):
    variant = df.copy()
    variant["analytic_s"] = df.analytic_s + df.latency * (np.where(register_queue, (z_chunk + extra) / z_chunk, 1.0) - 1)
    print(refit.variant_line(label, variant))
