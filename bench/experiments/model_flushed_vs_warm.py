"""The model's stored predictions against the flushed recordings of bench/results/spaces/h200-flushed-1 and the first
warm H200 recording of the same size elsewhere in bench/results/spaces: Spearman and the best of its top 10 per space,
then per kernel (bench/results/model/README.md, "On recordings timed with the L2 flushed").

usage: python3 bench/experiments/model_flushed_vs_warm.py
"""
import csv
import glob
import gzip
import os
import statistics

from flush_analysis import spearman

SUFFIX = "-h200.csv.gz"


def load(path):
    """{config: (measured s, predicted s)} of a recording's configurations that ran and were predicted."""
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {r["config"]: (float(r["time_s"]), float(r["predicted_s"])) for r in rows if r["outcome"] == "ok" and r.get("predicted_s")}


def figures(space):
    """The model's Spearman on the space and the best measured time of its top 10 over the optimum."""
    configs = list(space)
    measured = [space[c][0] for c in configs]
    top10 = sorted(configs, key=lambda c: space[c][1])[:10]
    return spearman([space[c][1] for c in configs], measured), min(space[c][0] for c in top10) / min(measured)


def main():
    rows = []  # (space, flushed figures, warm figures or None, warm folder)
    for path in sorted(glob.glob("bench/results/spaces/h200-flushed-1/*.csv.gz")):
        name = os.path.basename(path)
        warm = [w for w in sorted(glob.glob("bench/results/spaces/*/" + name)) if "flushed" not in w and "unscored" not in w]
        rows.append((name[:-len(SUFFIX)], figures(load(path)), figures(load(warm[0])) if warm else None,
                     warm[0].split("/")[-2] if warm else ""))
    for space, flushed, warm, folder in rows:
        other = f"{warm[0]:.2f} / {warm[1]:.3f}x | {folder} |" if warm else "- | |"
        print(f"| {space} | {flushed[0]:.2f} / {flushed[1]:.3f}x | {other}")
    both = [r for r in rows if r[2]]
    print(len(rows), len(both))
    for kernel in ("sum_of_squares", "transpose", "conv2d", "matmul"):
        of_kernel = [r for r in both if r[0].startswith(kernel)]
        print(kernel, len(of_kernel),
              "flushed mean Spearman %.3f top10<=1.03: %d" % (statistics.mean(r[1][0] for r in of_kernel), sum(r[1][1] <= 1.03 for r in of_kernel)),
              "warm %.3f %d" % (statistics.mean(r[2][0] for r in of_kernel), sum(r[2][1] <= 1.03 for r in of_kernel)))


if __name__ == "__main__":
    main()
