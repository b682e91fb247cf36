#!/usr/bin/env python3
"""The two spaces a `tune --time-steps N` session holds, from its export (`blocktune replay export-space`).

Such a session measured every configuration, the fused ones (fused_steps = k > 1: k time steps per launch)
included, and the database holds the time of one launch. The export mixes two searches:

    one-step   the rows with fused_steps = 1: the space `tune` for one step searches (it skips the fused
               configurations; `tune` for one step on the same database resumes exactly these rows);
    per-step   every row, time_s and predicted_s over the row's fused_steps: the space `tune --time-steps N`
               searched (it minimises the time per step: tuner/tune.cpp gives the strategy median_ms /
               steps_per_launch and ranks its predictions per step too).

cost_s, compile_s, occupancy and registers stay as they are (measuring a fused configuration costs what it
cost). The remainder launches a plan adds at the end (N not a multiple of k) are not counted, as the search
does not count them.

    python3 bench/results/spaces/time_step_spaces.py one-step|per-step EXPORT.csv.gz OUT.csv.gz
"""

import csv
import gzip
import io
import sys

NOTES = {"one-step": "# note: one step: the rows with fused_steps=1 of a tune --time-steps session "
                     "(bench/results/spaces/time_step_spaces.py)\n",
         "per-step": "# note: per time step: time_s and predicted_s are the launch's over its fused_steps "
                     "(bench/results/spaces/time_step_spaces.py)\n"}


def main(mode, source, target):
    with gzip.open(source, "rt", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    notes = [line for line in lines if line.startswith("#")]
    rows = list(csv.reader(io.StringIO("".join(line for line in lines if not line.startswith("#")))))
    header, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    kept = []
    for row in rows:
        entries = dict(item.split("=", 1) for item in row[col["config"]].split(","))
        steps = int(entries.get("fused_steps", "1"))
        if mode == "one-step":
            if steps == 1:
                kept.append(row)
            continue
        for name in ("time_s", "predicted_s"):
            if name in col and row[col[name]]:
                row[col[name]] = repr(float(row[col[name]]) / steps)
        kept.append(row)
    out = io.StringIO()
    out.write("".join(notes) + NOTES[mode])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(kept)
    with gzip.open(target, "wt", newline="") as f:
        f.write(out.getvalue())
    print(f"wrote {target}: {len(kept)} of {len(rows)} configurations ({mode})")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in NOTES:
        sys.exit(__doc__)
    main(*sys.argv[1:])
