#!/usr/bin/env python3
"""Writes a recorded space (blocktune replay's .csv.gz) whose model predictions
(predicted_s) are made wrong on purpose, to test that a search cannot be hurt
much by a bad model (issue 18, bench/results/search/calibration.md):

  shuffle   the predictions permuted among the configurations (an uninformative model)
  reverse   each prediction replaced by its reciprocal (a model that ranks backwards)
  bias      the predictions of one parameter value scaled (a model wrong about one coding):
            --value strategy=COMP --factor 0.3
  noise     each prediction times exp(N(0, sigma)), one draw per configuration (a model
            right on average but blurred): --sigma 1

  python3 bench/experiments/perturb_predictions.py shuffle IN.csv.gz OUT.csv.gz [--seed 42]
"""
import argparse
import csv
import gzip
import io
import math
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["shuffle", "reverse", "bias", "noise"])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--value", default="strategy=COMP", help="bias: the parameter value whose predictions change")
    parser.add_argument("--factor", type=float, default=0.3, help="bias: what its predictions are multiplied by")
    parser.add_argument("--sigma", type=float, default=1.0, help="noise: the spread of the log factor")
    args = parser.parse_args()

    with gzip.open(args.source, "rt", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    notes = [line for line in lines if line.startswith("#")]
    rows = list(csv.reader(line for line in lines if not line.startswith("#")))
    header, body = rows[0], rows[1:]
    if "predicted_s" not in header:
        raise SystemExit(f"{args.source}: no predicted_s column")
    column = header.index("predicted_s")
    predicted = [row[column] for row in body]
    if args.kind == "shuffle":
        random.Random(args.seed).shuffle(predicted)
    draws = random.Random(args.seed)
    for row, value in zip(body, predicted):
        if not value:
            row[column] = ""
        elif args.kind == "reverse":
            row[column] = repr(1e-6 / float(value))
        elif args.kind == "bias" and f",{args.value}," in f",{row[0]},":
            row[column] = repr(float(value) * args.factor)
        elif args.kind == "noise":
            row[column] = repr(float(value) * math.exp(draws.gauss(0, args.sigma)))
        else:
            row[column] = value
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    notes.append(f"# predictions: {args.kind} of {args.source}\n")
    with gzip.open(args.target, "wt", newline="") as f:
        f.write("".join(notes) + out.getvalue())


if __name__ == "__main__":
    main()
