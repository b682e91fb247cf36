#!/usr/bin/env python3
"""The model's figures and residuals on the recorded spaces, from the file
`test_model "[.residuals]"` writes (model-residuals.csv):

  python3 bench/results/model/residuals.py model-residuals.csv [--by strategy,zloop ...]

Per space: Spearman (ties at their mean rank, as blocktune::spearman), the best
measured time among the model's 10 fastest predictions over the optimum, and
the optimum's rank in the model's order. With --by, the median and quartiles of
log(measured / predicted) per group of the named parameters, per stencil space
(a positive median: the model is optimistic for that group).
"""
import csv
import math
import sys
from collections import defaultdict


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    rank = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            rank[order[k]] = (i + j) / 2
        i = j + 1
    return rank


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    mean = (len(a) - 1) / 2
    sab = sum((x - mean) * (y - mean) for x, y in zip(ra, rb))
    saa = sum((x - mean) ** 2 for x in ra)
    sbb = sum((y - mean) ** 2 for y in rb)
    return sab / math.sqrt(saa * sbb)


def figures(rows):
    predicted = [r["predicted"] for r in rows]
    measured = [r["measured"] for r in rows]
    order = sorted(range(len(rows)), key=lambda i: predicted[i])  # stable, as the test's stable_sort
    optimum = min(measured)
    best10 = min(measured[i] for i in order[:10])
    optimum_rank = order.index(measured.index(optimum)) + 1
    return spearman(predicted, measured), best10 / optimum, optimum_rank


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    by = []
    if "--by" in sys.argv:
        by = sys.argv[sys.argv.index("--by") + 1].split(",")
    spaces = defaultdict(list)
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            measured = float(row["measured_s"])
            if not math.isfinite(measured):
                continue
            config = dict(kv.split("=") for kv in row["config"].split(","))
            spaces[row["space"]].append({"config": config, "measured": measured, "predicted": float(row["predicted_s"])})
    print(f"{'space':<52} {'rows':>5} {'Spearman':>8} {'top-10 best':>11} {'optimum rank':>12}")
    for name in sorted(spaces):
        s, best, rank = figures(spaces[name])
        print(f"{name:<52} {len(spaces[name]):>5} {s:>8.3f} {best:>10.3f}x {rank:>12}")
    if not by:
        return
    for name in sorted(spaces):
        if not name.startswith("stencil3d"):
            continue
        groups = defaultdict(list)
        for r in spaces[name]:
            groups[tuple(r["config"].get(p, "-") for p in by)].append(math.log(r["measured"] / r["predicted"]))
        print(f"\n{name}: log(measured / predicted) by {','.join(by)}")
        for key in sorted(groups):
            v = sorted(groups[key])
            print(f"  {','.join(key):<28} {len(v):>5}  median {quantile(v, 0.5):+.3f}  quartiles {quantile(v, 0.25):+.3f} {quantile(v, 0.75):+.3f}")


if __name__ == "__main__":
    main()
