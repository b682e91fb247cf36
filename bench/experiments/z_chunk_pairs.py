"""Per stencil recording, how much slower a configuration runs with a shorter z chunk, measured and predicted.

For every pair of configurations that differ only in z_chunk (z8 against z32, z16 against z32, z32 against z64), of
RING (zloop REG) and of BASE (zloop INTZ or REG), the median over the pairs of time(a) / time(b), measured and as the
recording's predictions say. Give it recordings with today's model's predictions (the copies of
`test_model "[.todays-predictions-everywhere]"`) to read today's model:

    python3 bench/experiments/z_chunk_pairs.py /tmp/all/bench__stencil3d_r3-1280x768x40-h200.csv.gz ...
"""
import csv
import gzip
import io
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "anchors"))
import kt_strategies  # noqa: E402  (its parse_config reads blocktune's configuration text)

PAIRS = (("8", "32"), ("16", "32"), ("32", "64"))
CODINGS = {"RING": ("REG",), "BASE": ("INTZ", "REG")}


def successful_rows(path):
    with gzip.open(path, "rt") as f:
        lines = [line for line in f if not line.startswith("#")]
    return [row for row in csv.DictReader(io.StringIO("".join(lines))) if row["outcome"] == "ok"]


def main(paths):
    for path in paths:
        by_rest = {}  # the configuration without its z_chunk -> {z_chunk: (measured, predicted)}
        for row in successful_rows(path):
            config = dict(kt_strategies.parse_config(row["config"]))
            z_chunk = str(config.pop("z_chunk"))
            by_rest.setdefault(tuple(sorted(config.items())), {})[z_chunk] = (float(row["time_s"]), float(row["predicted_s"]))
        print(path.rsplit("/", 1)[-1])
        for strategy, zloops in CODINGS.items():
            cells = []
            for a, b in PAIRS:
                measured, predicted = [], []
                for rest, times in by_rest.items():
                    config = dict(rest)
                    if config["strategy"] != strategy or config["zloop"] not in zloops or a not in times or b not in times:
                        continue
                    measured.append(math.log(times[a][0] / times[b][0]))
                    predicted.append(math.log(times[a][1] / times[b][1]))
                if measured:
                    cells.append(f"z{a}/z{b} measured {math.exp(statistics.median(measured)):.2f} "
                                 f"predicted {math.exp(statistics.median(predicted)):.2f} ({len(measured)} pairs)")
            print(f"  {strategy:<4} " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
