#!/usr/bin/env python3
"""Two score_strategy outputs over the same spaces, line by line: the mean, how many spaces score >= 0.6, and the
spaces that moved by more than 0.02 (the usual noise of a 30-seed mean on the flat spaces is 0.02-0.07).

    python3 bench/experiments/compare_scores.py BEFORE.txt AFTER.txt
"""
import sys


def load(path):
    """score_strategy's output: (space, mean score) per line, its MEAN line left out."""
    rows = []
    for line in open(path):
        fields = line.split()
        if fields and fields[0] != "MEAN":
            rows.append((fields[0], float(fields[-3])))
    return rows


def main():
    before, after = load(sys.argv[1]), load(sys.argv[2])
    if [name for name, _ in before] != [name for name, _ in after]:
        sys.exit("the two files do not list the same spaces in the same order")
    pairs = [(name, a, b) for (name, a), (_, b) in zip(before, after)]
    n = len(pairs)
    better = sum(b - a > 0.02 for _, a, b in pairs)
    worse = sum(a - b > 0.02 for _, a, b in pairs)
    print(f"{n} spaces: mean {sum(a for _, a, _ in pairs) / n:.3f} -> {sum(b for *_, b in pairs) / n:.3f}; "
          f">= 0.6 on {sum(a >= 0.6 for _, a, _ in pairs)} -> {sum(b >= 0.6 for *_, b in pairs)}; "
          f"better by > 0.02 on {better}, worse on {worse}")
    for name, a, b in sorted(pairs, key=lambda p: p[2] - p[1]):
        if abs(b - a) > 0.02:
            print(f"  {b - a:+.3f}  {a:.3f} -> {b:.3f}  {name}")


if __name__ == "__main__":
    main()
