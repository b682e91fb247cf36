#!/usr/bin/env python3
"""Side by side: blocktune and Kernel Tuner on the same kernel, GPU and run.

Reads what bench/gpu/first-measurement.sh leaves in OUT for each kernel:
  bt-KERNEL.start   the wall-clock time blocktune was started
  bt-KERNEL.jsonl   blocktune tune --trace: one JSON line per trial (unix_time, outcome, median_ms)
  kt-KERNEL.json    bench/anchors/kt_budget.py: Kernel Tuner's results with seconds since its start
and prints, per kernel and tool: seconds to the first measurement, configurations measured and the
best time after 30 s and 120 s. With --measure BLOCKTUNE, the best configuration each tool had at
each checkpoint is timed again by `blocktune measure` in one harness, so that the two tools' best
times are compared by one method (blocktune reports medians, Kernel Tuner means).

  python3 bench/anchors/first_measurement.py OUT stencil3d_r1 gemm hotspot [--measure .carry/bin/blocktune]
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys

CHECKPOINTS = (30, 120)


def open_text(path):
    """The file, or its .gz where only that is there (the committed results are compressed)."""
    return open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")


def blocktune_timeline(out, kernel):
    with open(os.path.join(out, f"bt-{kernel}.start")) as f:
        start = float(f.read().split()[1])
    timeline = []
    with open_text(os.path.join(out, f"bt-{kernel}.jsonl")) as f:
        for line in f:
            trial = json.loads(line)
            if trial["outcome"] == "ok":
                timeline.append((trial["unix_time"] - start, trial["config"], trial["median_ms"]))
    return timeline


def kernel_tuner_timeline(out, kernel):
    with open_text(os.path.join(out, f"kt-{kernel}.json")) as f:
        run = json.load(f)
    timeline = [(m["seconds"], m["config"], m["time_ms"]) for m in run["measurements"]
                if m["time_ms"] is not None and m["seconds"] is not None]
    return sorted(timeline, key=lambda t: t[0]), run


def at(timeline, seconds):
    """Measured configurations and the best (time, config) by `seconds`."""
    done = [t for t in timeline if t[0] <= seconds]
    best = min(done, key=lambda t: t[2]) if done else None
    return len(done), best


def blocktune_config(kernel, config):
    """A Kernel Tuner configuration (dict) as blocktune's configuration text for the same spec."""
    if isinstance(config, str):
        return config
    entries = dict(config)
    if kernel == "stencil3d_r1":  # the spec's names, lower-case, and the carveout Kernel Tuner cannot set
        entries = {k.lower(): v for k, v in entries.items()}
        entries["carveout"] = -1
    return ",".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}" for k, v in entries.items())


def remeasure(blocktune, args, config):
    """`blocktune measure` prints "KERNEL PROBLEM CONFIG: 0.1234 ms median (...)"."""
    run = subprocess.run([blocktune, "measure", *args, "--config", config], capture_output=True, text=True)
    line = (run.stdout.strip().splitlines() or [run.stderr.strip()] or [""])[-1]
    match = re.search(r": ([0-9.]+) ms median", line)
    return (float(match.group(1)) if match else None), line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--measure", help="blocktune binary: time each tool's best configurations again in one harness")
    ap.add_argument("--measure-args", default="{}", help="JSON: kernel -> blocktune arguments naming kernel and problem")
    a = ap.parse_args()
    measure_args = json.loads(a.measure_args)
    rows = []
    for kernel in a.kernels:
        try:
            bt = blocktune_timeline(a.out, kernel)
            kt, kt_run = kernel_tuner_timeline(a.out, kernel)
        except (OSError, KeyError, ValueError) as error:
            print(f"{kernel}: incomplete ({error})")
            continue
        for tool, timeline in (("blocktune", bt), ("Kernel Tuner", kt)):
            row = {"kernel": kernel, "tool": tool, "first_s": timeline[0][0] if timeline else None}
            for c in CHECKPOINTS:
                n, best = at(timeline, c)
                row[f"n{c}"] = n
                row[f"best{c}"] = best
                if a.measure and best and kernel in measure_args:
                    row[f"again{c}"], row[f"again{c}_line"] = remeasure(a.measure, measure_args[kernel],
                                                                        blocktune_config(kernel, best[1]))
            rows.append(row)
        print(f"{kernel}: Kernel Tuner counted {kt_run.get('valid_configurations')} valid configurations, "
              f"{kt_run.get('failed')} of its evaluations failed")

    def ms(v):
        return f"{v:.4f}" if isinstance(v, float) else "-"

    header = "| kernel | tool | first measurement (s) | measured by 30 s | best by 30 s (ms) | measured by 120 s | best by 120 s (ms) |"
    if a.measure:
        header += " best by 30 s, timed again (ms) | best by 120 s, timed again (ms) |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for r in rows:
        cells = [r["kernel"], r["tool"], f"{r['first_s']:.1f}" if r["first_s"] is not None else "-",
                 str(r["n30"]), ms(r["best30"][2] if r["best30"] else None),
                 str(r["n120"]), ms(r["best120"][2] if r["best120"] else None)]
        if a.measure:
            cells += [ms(r.get("again30")), ms(r.get("again120"))]
        print("| " + " | ".join(cells) + " |")
    for r in rows:
        for c in CHECKPOINTS:
            if r.get(f"best{c}"):
                print(f"{r['kernel']} {r['tool']} best by {c} s: {blocktune_config(r['kernel'], r[f'best{c}'][1])}"
                      + (f"  [again: {r.get(f'again{c}_line')}]" if a.measure else ""))


if __name__ == "__main__":
    sys.exit(main())
