#!/usr/bin/env python3
"""Compares `blocktune plan --all` predictions with the times a blocktune database measured.

    blocktune plan stencil3d_r4 --arch sm_90 --all > plan.txt
    gunzip -k bench/results/stencil-ring/ring.db.gz
    python3 bench/results/model/plan_vs_measured.py plan.txt bench/results/stencil-ring/ring.db stencil3d_r4 RING [FILTER...]

Prints, for the measured configurations whose text contains every FILTER: the Spearman correlation
between predicted and measured time, the median of predicted / measured, where the best measured
one is predicted, the best measured among the 10 predicted fastest, and the plan's 10 fastest
predictions with their measured times.
"""
import re
import sqlite3
import sys


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    rank = [0] * len(values)
    for position, i in enumerate(order):
        rank[i] = position
    return rank


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    mean = (len(a) - 1) / 2
    return sum((x - mean) * (y - mean) for x, y in zip(ra, rb)) / sum((x - mean) ** 2 for x in ra)


plan_file, database, kernel = sys.argv[1:4]
name_filters = sys.argv[4:]
predicted = {}
for line in open(plan_file):
    match = re.match(r"\s+(block_x=\S+)\s+.*\s([\d.]+)\s+(\S+)\s*$", line)
    if match:
        predicted[match.group(1)] = float(match.group(2))
measured = dict(sqlite3.connect(database).execute(
    "select t.config, t.median_ms from trials t join kernels k on k.id = t.kernel_id where t.outcome = 'ok' and k.name = ?",
    (kernel,)).fetchall())
rows = [(config, ms, predicted[config]) for config, ms in measured.items()
        if all(f in config for f in name_filters) and config in predicted]
ratios = sorted(p / m for _, m, p in rows)
best = min(rows, key=lambda row: row[1])
print(f"{kernel}, {len(rows)} measured configurations containing {' and '.join(repr(f) for f in name_filters)}:")
print(f"  Spearman {spearman([r[1] for r in rows], [r[2] for r in rows]):.2f}, median predicted/measured {ratios[len(ratios) // 2]:.2f}")
print(f"  best measured {best[1]:.4f} ms, predicted {best[2]:.4f} ms: {best[0]}")
top10 = min(ms for _, ms, _ in sorted(rows, key=lambda row: row[2])[:10])
print(f"  best measured among the 10 predicted fastest: {top10 / best[1]:.3f}x the best")
print("  the plan's 10 fastest predictions (ms predicted, measured):")
for config, ms in sorted(predicted.items(), key=lambda item: item[1])[:10]:
    print(f"    {ms:.4f}  {measured.get(config, float('nan')):.4f}  {config}")
