#!/usr/bin/env python3
"""CSV round trip: every row of a `blocktune report --format csv` file, read
with Python's csv module, equals the trial stored in the database, read with
Python's sqlite3 module: same trials, same order, every field exact.

usage: check_csv.py DATABASE CSV [DATABASE CSV ...]
"""
import csv
import re
import sqlite3
import sys

TRIAL_COLUMNS = [
    "config", "block_x", "block_y", "block_z", "carveout", "outcome", "message", "samples_ms", "median_ms",
    "min_ms", "mean_ms", "spread", "registers", "static_smem", "dynamic_smem", "local_bytes", "spill_stores",
    "spill_loads", "blocks_per_sm", "occupancy", "limiting_factor", "compile_s", "verify_s", "benchmark_s",
    "timestamp", "blocktune_version", "sm_clock_mhz", "metric", "metric_unit",
]
SESSION_COLUMNS = ["device_uuid", "device_name", "kernel", "source_hash", "problem"]
# Empty for a configuration the constraints rejected: it was never compiled nor run.
UNMEASURED_WHEN_REJECTED = set(TRIAL_COLUMNS) - {"config", "outcome", "message", "timestamp", "blocktune_version"}


def stored_trials(database, extra_columns):
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    columns = ", ".join(f"t.{c}" for c in TRIAL_COLUMNS + extra_columns)
    return db.execute(
        f"SELECT d.uuid AS device_uuid, d.name AS device_name, k.name AS kernel, k.source_hash, p.dims AS problem, "
        f"k.parameter_names, {columns} FROM trials t JOIN devices d ON d.id = t.device_id "
        f"JOIN kernels k ON k.id = t.kernel_id JOIN problems p ON p.id = t.problem_id ORDER BY t.id").fetchall()


# One name=value of a configuration's text: a bare value, or one in double
# quotes with backslash escapes (it may hold commas and '=').
CONFIG_ENTRY = re.compile(r'\s*([A-Za-z_][\w.]*)\s*=\s*("(?:[^"\\]|\\.)*"|[^,]*?)\s*(?:,|$)')


def config_parameters(config):
    parameters = {}
    for name, value in CONFIG_ENTRY.findall(config):
        parameters[name] = re.sub(r"\\(.)", r"\1", value[1:-1]) if value.startswith('"') else value
    return parameters


def same(column, stored, text, outcome):
    if outcome == "rejected_by_constraint" and column in UNMEASURED_WHEN_REJECTED:
        return text == ""
    if stored is None:  # no prediction
        return text == ""
    if isinstance(stored, float):
        return float(text) == stored  # exact: the CSV holds the shortest round-trip decimal
    if column == "samples_ms":
        return [float(x) for x in text.split()] == [float(x) for x in stored.split()]
    return str(stored) == text


def check(database, csv_file):
    with open(csv_file, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    # Present (schema version 3 on) only where some trial has a prediction.
    predicted = ["predicted_ms"] if "predicted_ms" in reader.fieldnames else []
    trials = stored_trials(database, predicted)
    if len(rows) != len(trials):
        sys.exit(f"{csv_file}: {len(rows)} rows, the database holds {len(trials)} trials")
    mismatches = 0
    for number, (row, trial) in enumerate(zip(rows, trials), start=1):
        for column in SESSION_COLUMNS + TRIAL_COLUMNS + predicted:
            if not same(column, trial[column], row[column], trial["outcome"]):
                mismatches += 1
                print(f"{csv_file} row {number} {column}: {row[column]!r} != stored {trial[column]!r}", file=sys.stderr)
        parameters = config_parameters(trial["config"])
        for name in trial["parameter_names"].split(","):
            if row[f"param.{name}"] != parameters[name]:
                mismatches += 1
                print(f"{csv_file} row {number} param.{name}: {row[f'param.{name}']!r}", file=sys.stderr)
    if mismatches:
        sys.exit(f"{csv_file}: {mismatches} fields differ from {database}")
    print(f"{csv_file}: {len(rows)} rows equal the trials of {database}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    for i in range(1, len(sys.argv), 2):
        check(sys.argv[i], sys.argv[i + 1])
