#!/usr/bin/env python3
"""How far the model's Spearman could rise by correcting its bias per group of configurations (issue 18 item 3).

An oracle, not a model: each group's (e.g. each coding's) median log(measured / predicted) is taken from the
space's own measurements and applied to the group's predictions, and the Spearman rank correlation of the
corrected predictions is printed per stencil space. If even this leaves a space below 0.8, no per-group term can
lift it there; what is missing is within the groups.
    build/tests/model/test_model "[.residuals]"          # writes model-residuals.csv in the working directory
    python3 bench/experiments/model_group_oracle.py model-residuals.csv
"""
import argparse
import collections
import csv
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "results" / "model"))
from residuals import spearman  # noqa: E402  (the one Spearman of the model's figures)

GROUPINGS = [
    ("strategy", "zloop"),
    ("strategy", "zloop", "carveout"),
    ("strategy", "zloop", "vx"),
    ("strategy", "zloop", "py"),
    ("strategy", "zloop", "z_chunk"),
    ("strategy", "zloop", "block_x", "block_y", "block_z"),
]


def corrected(rows, keys):
    residuals = collections.defaultdict(list)
    groups = []
    for row in rows:
        values = dict(entry.split("=") for entry in row["config"].split(","))
        group = tuple(values.get(key) for key in keys)
        groups.append(group)
        residuals[group].append(math.log(float(row["measured_s"]) / float(row["predicted_s"])))
    median = {group: sorted(values)[len(values) // 2] for group, values in residuals.items()}
    return [float(row["predicted_s"]) * math.exp(median[group]) for row, group in zip(rows, groups)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("residuals", help="model-residuals.csv (tab-separated) from test_model \"[.residuals]\"")
    args = parser.parse_args()
    spaces = collections.defaultdict(list)
    with open(args.residuals) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["space"].startswith("stencil3d"):
                spaces[row["space"]].append(row)
    names = sorted(spaces)
    print("correction by".ljust(44) + " ".join(name.split("-h")[0][len("stencil3d_"):].ljust(16) for name in names))
    measured = {name: [float(row["measured_s"]) for row in spaces[name]] for name in names}
    print("none (the model)".ljust(44) + " ".join(
        f"{spearman(measured[name], [float(row['predicted_s']) for row in spaces[name]]):.3f}".ljust(16) for name in names))
    for keys in GROUPINGS:
        print(", ".join(keys).ljust(44) + " ".join(
            f"{spearman(measured[name], corrected(spaces[name], keys)):.3f}".ljust(16) for name in names))


if __name__ == "__main__":
    main()
