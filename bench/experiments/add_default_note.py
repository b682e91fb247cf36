#!/usr/bin/env python3
"""Adds the '# default: CONFIG' note to recorded-space files made before recordings carried it.

The default is the one the kernel's spec gives (the builtin stencil's for stencil3d_r*), written with the
parameters in the order of the file's configurations. A file that has the note already, or whose kernel has
no spec here, is left as it is. Since blocktune reads the note, replays measure the default first, as tune does.

  python3 bench/experiments/add_default_note.py tests/data/spaces/*.csv.gz bench/results/spaces/*.csv.gz
"""
import csv
import glob
import gzip
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# kernels/stencil3d.cpp's default_config, which every stencil3d_r* recording was made with.
STENCIL_DEFAULT = {"block_x": 32, "block_y": 16, "block_z": 1, "strategy": "BASE", "zloop": "NONE", "z_chunk": 1, "vx": 1,
                   "py": 1, "fused_steps": 1, "carveout": -1}


def spec_defaults():
    defaults = {}
    for spec in glob.glob(os.path.join(ROOT, "examples/specs/*/spec.json")) + glob.glob(os.path.join(ROOT, "bench/anchors/specs/*/spec.json")):
        with open(spec) as f:
            data = json.load(f)
        if data.get("name") and data.get("default"):
            defaults[data["name"]] = data["default"]
    return defaults


def main(files):
    defaults = spec_defaults()
    for path in files:
        with gzip.open(path, "rt", newline="") as f:
            lines = f.read().split("\n")
        notes = [line for line in lines if line.startswith("# ")]
        if any(line.startswith("# default: ") for line in notes):
            continue
        kernel = next(line[len("# kernel: "):] for line in notes if line.startswith("# kernel: "))
        default = STENCIL_DEFAULT if kernel.startswith("stencil3d_r") else defaults.get(kernel)
        header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        first_config = next(csv.reader([lines[header + 1]]))[0]
        names = [entry.split("=", 1)[0] for entry in first_config.split(",")]
        if default is None or any(name not in default for name in names):
            print(f"{path}: no default for kernel {kernel}, left as it is")
            continue
        note = "# default: " + ",".join(f"{name}={default[name]}" for name in names)
        lines.insert(header, note)
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write("\n".join(lines).encode())
        print(f"{path}: {note}")


if __name__ == "__main__":
    main(sys.argv[1:])
