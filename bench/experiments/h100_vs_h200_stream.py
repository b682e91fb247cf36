#!/usr/bin/env python3
"""The same stencil configurations on the H100 and the H200, by coding and fusion depth (issue 19).

Both recordings hold the first STREAM coding (commit 17a9032): the H100 spaces of tests/data/spaces and the
H200 databases of bench/results/time-steps (tuned for 100 steps; exported here to recorded spaces, per-launch
times). A single step is DRAM-bound and runs slower on the H100; a fused launch is bound by the SMs, which the
two devices share (132 SMs, the same clocks). Prints, per radius, the median H100/H200 time ratio of the
configurations both measured, by coding and depth, and the fastest single step of each.
    python3 bench/experiments/h100_vs_h200_stream.py [--blocktune build/cli/blocktune]
"""
import argparse
import collections
import csv
import gzip
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(path):
    lines = [line for line in gzip.open(path, "rt") if not line.startswith("#")]
    return {row["config"]: float(row["time_s"]) for row in csv.DictReader(lines) if row["time_s"]}


def export_h200(blocktune, radius, into):
    database = into / f"r{radius}.db"
    name = "time-steps-h200.db.gz" if radius == 1 else "time-steps-h200-r2.db.gz"
    database.write_bytes(gzip.decompress((ROOT / "bench/results/time-steps" / name).read_bytes()))
    subprocess.run([blocktune, "replay", "export-space", "--db", str(database), "--output-dir", str(into / f"r{radius}")],
                   check=True, capture_output=True)
    return load(into / f"r{radius}" / f"stencil3d_r{radius}-512x512x512-h200.csv.gz")


def quartiles(values):
    values = sorted(values)
    return values[len(values) // 4], values[len(values) // 2], values[3 * len(values) // 4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocktune", default=str(ROOT / "build/cli/blocktune"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for radius in (1, 2):
            h100 = load(ROOT / f"tests/data/spaces/stencil3d_r{radius}-512x512x512-h100-80gb-hbm3.csv.gz")
            h200 = export_h200(args.blocktune, radius, pathlib.Path(scratch))
            common = sorted(set(h100) & set(h200))
            print(f"radius {radius}: {len(common)} configurations measured on both")
            ratios = collections.defaultdict(list)
            for config in common:
                values = dict(entry.split("=") for entry in config.split(","))
                coding = values["strategy"] + (f", {values['fused_steps']} steps" if values["strategy"] == "STREAM" else "")
                ratios[coding].append(h100[config] / h200[config])
            print("  coding              configurations  H100/H200 time: median (quartiles)")
            for coding, values in sorted(ratios.items()):
                low, median, high = quartiles(values)
                print(f"  {coding:18s} {len(values):15d}  {median:.3f} ({low:.3f}-{high:.3f})")
            for name, times in (("H100", h100), ("H200", h200)):
                fastest = min(time for config, time in times.items() if "fused_steps=1" in config)
                print(f"  fastest single step, {name}: {fastest * 1e3:.4f} ms")


if __name__ == "__main__":
    main()
