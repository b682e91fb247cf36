#!/usr/bin/env python3
"""The table of README.md from tail.log and the ncu CSVs in ncu-raw.tar.gz: python3 summarise.py [DIR]."""
import csv
import io
import os
import re
import sys
import tarfile

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
log = open(os.path.join(here, "tail.log")).read()
timing = {m.group(1): float(m.group(2)) for m in re.finditer(r"== (\S+): timing\n\$ [^\n]*\n[^\n]*: ([0-9.]+) ms median", log)}


def number(text):
    return float(text.replace(",", ""))


rows = []
with tarfile.open(os.path.join(here, "ncu-raw.tar.gz")) as tar:
    for member in tar.getmembers():
        if not member.name.endswith(".csv"):
            continue
        lines = [line for line in io.TextIOWrapper(tar.extractfile(member)) if line.startswith('"')]
        header, _units, data = list(csv.reader(lines))[:3]
        value = {name: data[i] for i, name in enumerate(header)}
        name = os.path.basename(member.name)[:-4]
        elapsed, active = number(value["sm__cycles_elapsed.max"]), number(value["sm__cycles_active.avg"])
        waves = number(value["launch__waves_per_multiprocessor"])
        model_tail = 0.5 / max(waves, 1)  # Prediction::tail over the throughput-bound time
        rows.append((name.split("-z")[0], int(name.split("-z")[1]), timing[name], number(value["launch__grid_size"]), waves,
                     1 - active / elapsed, number(value["sm__cycles_active.min"]) / elapsed, model_tail / (1 + model_tail)))
print("| space | z_chunk | blocktune's median (ms) | blocks | waves | idle share (1 - mean SM active / elapsed) "
      "| least active SM / elapsed | the model's tail share |")
print("|---|---|---|---|---|---|---|---|")
for r in sorted(rows):
    print(f"| {r[0]} | {r[1]} | {r[2]:.4f} | {r[3]:.0f} | {r[4]:.2f} | {r[5]:.3f} | {r[6]:.2f} | {r[7]:.3f} |")
