"""Turns the stencil study CSV (`blocktune bench stencil --csv`, see
bench/gpu/stencil.sh) into a Markdown table and a chart: every coding x radius,
the best configuration's share of the device-to-device copy bandwidth measured
in the same run.

    python3 bench/stencil_study.py bench/results/stencil/h100-study.csv docs/stencil-study
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

source, stem = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(open(source)) if r["problem"] == "512x512x512"]
device = rows[0]["device"]
codings = ["baseline BASE 32x16x1"] + sorted({r["coding"] for r in rows} - {"baseline BASE 32x16x1"})
radii = sorted({int(r["radius"]) for r in rows})
cell = defaultdict(dict)
for r in rows:
    cell[r["coding"]][int(r["radius"])] = r


def shape(config):
    values = dict(item.split("=") for item in config.split(","))
    return f"{values['block_x']}x{values['block_y']}x{values['block_z']} vx{values['vx']} z{values['z_chunk']} c{values['carveout']}"


lines = [f"| coding | " + " | ".join(f"r={r}" for r in radii) + " |", "|---|" + "---|" * len(radii)]
for coding in codings:
    parts = []
    for radius in radii:
        r = cell[coding].get(radius)
        parts.append("" if r is None else f"{100 * float(r['fraction_of_copy']):.0f}% ({shape(r['config'])})")
    lines.append(f"| {coding} | " + " | ".join(parts) + " |")
best = []
for radius in radii:
    top = max((cell[c][radius] for c in codings if radius in cell[c]), key=lambda r: float(r["fraction_of_copy"]))
    best.append(f"r={radius}: {top['coding']} {100 * float(top['fraction_of_copy']):.1f}% of copy, "
                f"{float(top['speedup_vs_naive']):.2f}x the naive baseline")
open(stem + ".md", "w").write(
    f"Device: {device}; 512x512x512 FP32, one time step; cells: best configuration's effective bandwidth "
    "(8 bytes per cell) as a share of the same run's device-to-device copy, and its block shape, "
    "points per thread in x (vx), z chunk and carveout.\n\n" + "\n".join(lines) + "\n\nBest per radius: " + "; ".join(best) + ".\n")

fig, ax = plt.subplots(figsize=(10, 4.8))
width = 0.8 / len(codings)
palette = [c for i, c in enumerate(plt.get_cmap("tab10").colors) if i != 7]  # grey is the baseline's
for i, coding in enumerate(codings):
    values = [100 * float(cell[coding][r]["fraction_of_copy"]) if r in cell[coding] else 0 for r in radii]
    baseline = coding.startswith("baseline")
    ax.bar([x + i * width for x in range(len(radii))], values, width, label=coding,
           color="0.75" if baseline else palette[(i - 1) % len(palette)], hatch="//" if baseline else None)
ax.set_xticks([x + width * (len(codings) - 1) / 2 for x in range(len(radii))], [f"radius {r}" for r in radii])
ax.set_ylabel("% of same-run copy bandwidth")
ax.set_ylim(0, 105)
ax.axhline(90, color="k", lw=0.6, ls="--")
ax.axhline(85, color="k", lw=0.6, ls=":")
ax.set_title(f"3D star stencil 512³ FP32 on {device}: best configuration of each coding")
ax.legend(ncol=5, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08))
fig.tight_layout()
fig.savefig(stem + ".png", dpi=110)
print(open(stem + ".md").read())
