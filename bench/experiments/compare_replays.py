"""Compares `blocktune replay run --json` files of the default strategy (`surrogate`) over the same spaces.

usage: compare_replays.py NO_MODEL.json BASE.json [VARIANT.json ...]

Per file: the mean score over the spaces, how many reach 0.6, how many are more than 0.05 below --no-model (and by
more than 0.05 + two standard errors of the difference), and against BASE how many are better or worse by more than
0.05. Issue 18's per-space targets; used by bench/results/search-calibration/*-not-kept/ and seed-noise/.
"""
import json
import math
import sys


def load(path):
    """{space id: (score, standard error)} of the surrogate, and the seeds: a space's id is its folder and file
    stem (`today-all` copies name both in the file: FOLDER__FILE)."""
    with open(path) as f:
        run = json.load(f)
    scores = {}
    for entry in run["spaces"]:
        origin = entry["space"]["origin"]
        if "today-all" in origin:
            sid = origin.split("/")[-1].replace(".csv.gz", "").replace("__", "/")
        else:
            sid = "/".join(origin.split("/")[-2:]).replace(".csv.gz", "")
        summary = entry["strategies"]["surrogate"]
        scores[sid] = (summary["score"], summary.get("score_standard_error", 0.0))
    return scores, run["seeds"]


def main():
    no_model, _ = load(sys.argv[1])
    base = None
    for path in sys.argv[2:]:
        x, _ = load(path)
        keys = sorted(k for k in x if k in no_model)
        below = [k for k in keys if x[k][0] < no_model[k][0] - 0.05]
        sure = [k for k in below if x[k][0] < no_model[k][0] - 0.05 - 2 * math.hypot(x[k][1], no_model[k][1])]
        line = (f"{path.split('/')[-1]:28s} n={len(keys)} mean {sum(x[k][0] for k in keys) / len(keys):.3f}  "
                f">=0.6 {sum(x[k][0] >= 0.6 for k in keys):3d}  below no-model>0.05 {len(below):2d} (2SE {len(sure)})")
        if base:
            better = sum(x[k][0] > base[k][0] + 0.05 for k in keys)
            worse = sum(x[k][0] < base[k][0] - 0.05 for k in keys)
            line += f"  vs first: better {better} worse {worse}"
        else:
            base = x
        print(line)


if __name__ == "__main__":
    main()
