#!/usr/bin/env python3
"""The default's first tune with a candidate correction's out-of-fold predictions (issue 18, item 3).

A correction is judged on held-out grids by three figures: Spearman, the top 10, and the default's first tune
(`score_strategy surrogate model 10` on copies carrying its predictions). The first two can be had out of fold from the
residual rows alone (train_residual.py); this gives the third, so that a candidate can be compared with today's on the
recordings already read before a held-out set is spent on it. Each recording is predicted by trees fitted without its
fold, its predictions written into a copy of the recording, and every copy scored by the search:

  (cd /tmp/rows && build/tests/model/test_model "[.residuals-stencil]")          # the rows
  (cd /tmp/copies && build/tests/model/test_model "[.stencil-figures]")          # copies of every stencil recording
  bench/experiments/oof_first_tune.py /tmp/rows/model-residuals.csv /tmp/copies /tmp/oof --variant both+dev \\
      --score /tmp/score_strategy                    # built as bench/experiments/score_strategy.cpp says

Variants: which devices' recordings the trees learn from and which features they see: those model/residual.cpp had
before the device's balance and the walk's planes were added, with those two computed here (the device; log2 of
z_chunk where the coding walks z), or `built`, model/residual.cpp's own. The hyperparameters are the kept
correction's (train_residual.py's KEPT_POINT), the folds the sorted spaces dealt into --folds groups.
"""
import argparse
import csv
import gzip
import pathlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from train_residual import EARLIER_FEATURES, FEATURES, KEPT_POINT, figures, fit, load  # noqa: E402

VARIANTS = {  # name: (devices learned from, features, whether the devices weigh equally)
    "h200": (("h200",), EARLIER_FEATURES, False),
    "both": (("h200", "h100"), EARLIER_FEATURES, False),
    "both+dev": (("h200", "h100"), EARLIER_FEATURES + ["x_dev"], False),
    "both+dev+steps": (("h200", "h100"), EARLIER_FEATURES + ["x_dev", "x_steps"], False),
    "h200+steps": (("h200",), EARLIER_FEATURES + ["x_steps"], False),
    "built": (("h200", "h100"), FEATURES, False),  # model/residual.cpp's features, the device's and the walk's among them
    "built+equal-devices": (("h200", "h100"), FEATURES, True),
    # the walk's planes seen against the device's balance: log2(DRAM bytes per SM clock / planes), what filling a
    # chunk's pipeline costs by Little's law, in place of the planes alone
    "built-fill": (("h200", "h100"), FEATURES[:-1] + ["x_fill"], False),
    # how far apart a walk's halo planes are read twice: the share of a block's planes that another block's walk
    # reads too, and log2 of the MiB the grid touches between the two reads (a plane, in and out, per plane walked)
    "built+zreuse": (("h200", "h100"), FEATURES + ["x_reread", "x_reuse"], False),
    # what the last wave leaves idle: log(ceil(waves) / waves), the waves unrounded (log_waves); 0 on whole waves
    "built+quant": (("h200", "h100"), FEATURES + ["x_quant"], False),
    # the z walk's kind: whether it keeps the walked planes in registers (REG) or reloads them through L1 (INTZ), on
    # which today's correction leaves the INTZ walks 1-5% slower than measured next to the REG walks at the fast end
    "built+zloop": (("h200", "h100"), FEATURES + ["x_intz", "x_zreg"], False),
}
# Variants that change the kept hyperparameters (KEPT_POINT), not the data or the features: name: (variant, changes).
DEEPER = {"built-depth6": ("built", {"max_depth": 6}), "built-depth8": ("built", {"max_depth": 8}),
          "built-depth6+equal-devices": ("built+equal-devices", {"max_depth": 6}),
          "built-depth8+zreuse": ("built+zreuse", {"max_depth": 8}),
          "built-depth8+quant": ("built+quant", {"max_depth": 8}),
          "built-depth8+zloop": ("built+zloop", {"max_depth": 8}),
          "built-depth8-fast4": ("built", {"max_depth": 8, "fast_weight": 4})}


def device_of(name):
    """The device of a row id or a copy's name: the recordings name the H100 (`-h100-80gb-hbm3`), else an H200."""
    return "h100" if "-h100" in name else "h200"


def copy_name(space):
    """The copy [.stencil-figures] writes for a row id `<stem>@<folder>.csv.gz` (its space_id_file_name)."""
    stem, folder = space.removesuffix(".csv.gz").split("@")
    return ("flushed__" if "-flushed-" in folder else "bench__") + stem + ".csv.gz"


def write_copy(source, target, predicted):
    """The recording `source` with each configuration's predicted_s replaced by `predicted[config]`."""
    with gzip.open(source, "rt", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    rows = list(csv.reader(lines[header + 1:]))
    columns = next(csv.reader([lines[header]]))
    at = columns.index("predicted_s")
    with gzip.open(target, "wt", newline="") as f:
        f.writelines(lines[:header + 1])
        out = csv.writer(f, lineterminator="\n")
        for row in rows:
            if row[0] in predicted:  # fused launches and failures keep what the copy has
                row[at] = repr(float(predicted[row[0]]))
            out.writerow(row)


def z_reuse(df):
    """x_reread and x_reuse (VARIANTS) of each row, from its space id (radius, grid) and its configuration."""
    grid = df.space.str.extract(r"stencil3d_r(\d+)-(\d+)x(\d+)x(\d+)-").astype(float)
    r, nx, ny, nz = (grid[i].values for i in range(4))
    walk = df.config.str.extract(r"block_z=(\d+),.*zloop=(\w+),z_chunk=(\d+)")
    block_z, walks, z_chunk = walk[0].astype(float).values, (walk[1] != "NONE").values, walk[2].astype(float).values
    interior = nz - 2 * r
    z_blocks = np.where(walks, np.ceil(interior / z_chunk), np.ceil(interior / block_z))
    planes = np.where(walks, interior / z_blocks, block_z) + 2 * r
    reread = 2 * r * (z_blocks - 1) / (z_blocks * planes)
    reuse = np.log2(planes * nx * ny * 4 * 2 / 2**20)
    return reread, reuse


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("residuals", help='model-residuals.csv of test_model "[.residuals-stencil]"')
    parser.add_argument("copies", type=pathlib.Path, help='the folder [.stencil-figures] wrote its copies into')
    parser.add_argument("output", type=pathlib.Path, help="a folder for the out-of-fold copies")
    parser.add_argument("--variant", choices=list(VARIANTS) + list(DEEPER), required=True)
    parser.add_argument("--folds", type=int, default=12)
    parser.add_argument("--score", required=True, help="the score_strategy binary")
    args = parser.parse_args()

    df = load(args.residuals)
    df = df[df.steps == 1].copy()  # the correction applies to one-step launches only
    planes = df.config.str.extract(r"zloop=(\w+),z_chunk=(\d+)")
    df["x_steps"] = np.log2(np.where(planes[0] != "NONE", planes[1].astype(float), 1))
    df["x_intz"], df["x_zreg"] = (planes[0] == "INTZ").astype(float), (planes[0] == "REG").astype(float)
    df["x_dev"] = (df.device == "h200").astype(float)
    df["x_fill"] = df.f12 - df.f13
    df["x_reread"], df["x_reuse"] = z_reuse(df)
    waves = np.exp(df.f9)
    df["x_quant"] = np.log(np.ceil(waves - 1e-9) / waves)  # exp(log(2)) may come back a hair above 2
    variant, changes = DEEPER.get(args.variant, (args.variant, {}))
    devices, features, equal = VARIANTS[variant]
    params = {k: v[0] for k, v in KEPT_POINT.items()} | changes
    spaces = sorted(df.space.unique())
    args.output.mkdir(parents=True, exist_ok=True)
    ranked = {}  # space: (Spearman, the best of the top 10 over the optimum), out of fold
    for group in (spaces[i::args.folds] for i in range(args.folds)):
        model = fit(df[~df.space.isin(group) & df.device.isin(devices)], params, features, equal)
        for space in group:
            rows = df[df.space == space]
            predicted = rows.analytic_s.values * np.exp(model.predict(rows[features].values))
            ranked[space] = figures(predicted, rows.measured_s.values)
            write_copy(args.copies / copy_name(space), args.output / copy_name(space), dict(zip(rows.config, predicted)))
        print(f"fold of {len(group)} written", file=sys.stderr, flush=True)

    names = sorted(copy_name(s) for s in spaces)
    result = subprocess.run([args.score, "surrogate", "model", "10", *names], cwd=args.output, check=True, capture_output=True, text=True)
    fields = [line.split() for line in result.stdout.splitlines() if line.endswith(tuple("0123456789")) and not line.startswith("MEAN")]
    scores = {f[0]: float(f[-3]) for f in fields}
    for device in ("h200", "h100"):
        mine = [scores[n] for n in names if device_of(n) == device]
        print(f"{args.variant} {device}: first tune mean {np.mean(mine):.3f} over {len(mine)} (min {min(mine):.3f})")
        rho, top10 = np.array([ranked[s] for s in spaces if device_of(s) == device]).T
        print(f"{args.variant} {device}: Spearman mean {rho.mean():.3f}, top 10 mean {top10.mean():.3f}x, "
              f"within 3% on {(top10 <= 1.03).sum()} of {len(top10)}")
    for space in spaces:
        print(f"{space}\tSpearman {ranked[space][0]:.3f}\ttop 10 {ranked[space][1]:.3f}x")
    print(result.stdout, end="")


if __name__ == "__main__":
    main()
