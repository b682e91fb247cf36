#!/usr/bin/env python3
"""score_strategy outputs over the same spaces, side by side, by kernel: each file's mean score, and in brackets how
many spaces score >= 0.6 and, where the last file is the `--no-model` run (its name contains "no-model"), how many
score more than 0.05 below it (issue 18, items 4 and 2).

    python3 bench/experiments/compare_by_kernel.py WITHOUT.txt WITH.txt ... NO-MODEL.txt
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_scores import load  # noqa: E402


def kernel(space):
    """The kernel of a space file name: 'bench__sum_of_squares-1048576-h200.csv.gz' -> 'sum_of_squares'."""
    return re.sub(r"-[0-9x]+-h[0-9].*", "", space.split("__", 1)[-1])


def main():
    files = sys.argv[1:]
    runs = [dict(load(f)) for f in files]
    if any(set(run) != set(runs[0]) for run in runs):
        sys.exit("the files do not score the same spaces")
    no_model = runs[-1] if "no-model" in files[-1] else None
    groups = collections.defaultdict(list)
    for space in runs[0]:
        groups[kernel(space)].append(space)
    groups["all"] = list(runs[0])
    print(f"{'kernel':<16} {'spaces':>6}  " + "  ".join(files))
    for name, spaces in sorted(groups.items()):
        cells = []
        for run in runs:
            cell = f"{sum(run[s] for s in spaces) / len(spaces):.3f} ({sum(run[s] >= 0.6 for s in spaces)}"
            if no_model and run is not no_model:
                cell += f", {sum(run[s] < no_model[s] - 0.05 for s in spaces)}"
            cells.append(cell + ")")
        print(f"{name:<16} {len(spaces):>6}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
