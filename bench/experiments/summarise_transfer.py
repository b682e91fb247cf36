"""Per kernel and GPU: the mean score of the default with the model's predictions as recorded and corrected by the
nearest other problem size, from the output of score_transfer.cpp, and how many spaces reach 0.6 either way.

    python3 bench/experiments/summarise_transfer.py bench/results/search-calibration/size-transfer/held-out-15.txt
"""
import collections
import os
import re
import sys

ROW = re.compile(r"(\S+)\s+(-?\d\.\d+) \+- \d\.\d+\s+(-?\d\.\d+) \+- \d\.\d+\s+(\S+)")


def main():
    rows = [(m.group(1), float(m.group(2)), float(m.group(3))) for m in map(ROW.match, open(sys.argv[1])) if m]
    families = collections.defaultdict(list)
    for name, as_is, transferred in rows:
        kernel = re.match(r"(?:bench__)?([a-z_0-9]+?)-\d", os.path.basename(name)).group(1)
        families[kernel + ("-h200" if "h200" in name else "-h100")].append((as_is, transferred))
    families["all"] = [(a, t) for _, a, t in rows]
    for family, pairs in sorted(families.items(), key=lambda f: (f[0] == "all", f[0])):
        as_is = [a for a, _ in pairs]
        transferred = [t for _, t in pairs]
        print(f"{family:<22} n={len(pairs):3d} as recorded {sum(as_is) / len(pairs):.3f} transferred "
              f"{sum(transferred) / len(pairs):.3f}  >= 0.6: {sum(a >= 0.6 for a in as_is)} -> "
              f"{sum(t >= 0.6 for t in transferred)}  worse by > 0.05: {sum(t < a - 0.05 for a, t in pairs)}  "
              f"better by > 0.05: {sum(t > a + 0.05 for a, t in pairs)}")


if __name__ == "__main__":
    main()
