#!/usr/bin/env python3
"""Two sets of predictions of the same recordings, side by side: per kernel, the mean Spearman of predicted against
measured time, the best measured time among the model's top 10 and the measured time of its favourite (both over the
optimum). BEFORE and AFTER are files listing recordings (.csv.gz), one per line, in the same order: the same
recordings with their stored predictions, or copies written by `test_model "[.todays-predictions-everywhere]"` (see
bench/experiments/README or the results that use this). Pairs whose predictions are identical are left out.

With --by PARAMETER it also prints, per recording of AFTER's list, for each value of PARAMETER the fastest measured
and the fastest predicted time with that value, each over its own optimum (measured/predicted):

  python3 bench/experiments/compare_predictions.py before.txt after.txt [--by items_per_thread]
"""
import argparse
import collections
import csv
import functools
import gzip
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "model"))
from residuals import spearman  # noqa: E402  (ties at their mean rank, as blocktune::spearman)


@functools.cache  # a file is looked at up to four times: compared, figured, grouped by value
def rows(path):
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    header = {k.strip(): v.strip() for k, v in (l[1:].split(":", 1) for l in lines if l.startswith("#") and ":" in l)}
    ok = [r for r in csv.DictReader(l for l in lines if not l.startswith("#")) if r["outcome"] == "ok"]
    return header, ok


def figures(path):
    _, ok = rows(path)
    measured = [float(r["time_s"]) for r in ok]
    predicted = [float(r["predicted_s"]) for r in ok]
    optimum = min(measured)
    order = sorted(range(len(ok)), key=lambda i: predicted[i])  # stable: ties in file order, as the model tests
    return (spearman(measured, predicted), min(measured[i] for i in order[:10]) / optimum, measured[order[0]] / optimum)


def by_value(path, parameter):
    header, ok = rows(path)
    measured, predicted = collections.defaultdict(lambda: float("inf")), collections.defaultdict(lambda: float("inf"))
    for r in ok:
        value = re.search(parameter + r"=([^,]+)", r["config"]).group(1)
        measured[value] = min(measured[value], float(r["time_s"]))
        predicted[value] = min(predicted[value], float(r["predicted_s"]))
    m0, p0 = min(measured.values()), min(predicted.values())
    values = sorted(measured, key=lambda v: (len(v), v))
    timing = "flushed" if header.get("l2") == "flushed" else "warm"
    return (f"{header.get('device', '?')[:11]} {timing:7} {header.get('problem', '?'):>10} "
            + " ".join(f"{v}:{measured[v] / m0:.3f}/{predicted[v] / p0:.2f}" for v in values))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--by", metavar="PARAMETER")
    args = ap.parse_args()
    before = [l.strip() for l in open(args.before) if l.strip()]
    after = [l.strip() for l in open(args.after) if l.strip()]
    if len(before) != len(after):
        raise SystemExit("compare_predictions.py: the two lists differ in length")
    kernels = collections.defaultdict(list)
    for b, a in zip(before, after):
        if [r["predicted_s"] for r in rows(b)[1]] == [r["predicted_s"] for r in rows(a)[1]]:
            continue
        kernels[rows(b)[0].get("kernel", "?")].append((figures(b), figures(a)))
    print("kernel, recordings: mean Spearman, top-10 best, favourite (measured over the optimum); "
          "top-10 best within 1%: before -> after")
    for kernel, pairs in sorted(kernels.items()):
        mean = [(statistics.mean(p[0][k] for p in pairs), statistics.mean(p[1][k] for p in pairs)) for k in range(3)]
        within = [sum(p[side][1] <= 1.01 for p in pairs) for side in (0, 1)]
        print(f"{kernel}, {len(pairs)}: Spearman {mean[0][0]:.3f} -> {mean[0][1]:.3f}, top 10 {mean[1][0]:.3f} -> "
              f"{mean[1][1]:.3f}, favourite {mean[2][0]:.3f} -> {mean[2][1]:.3f}; within 1% {within[0]} -> {within[1]}")
    if args.by:
        print(f"\nper value of {args.by}: fastest measured / fastest predicted, each over its optimum (AFTER's list)")
        for path in after:
            print(by_value(path, args.by))


if __name__ == "__main__":
    main()
