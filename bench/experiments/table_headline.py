"""The anchors table's headline for a default strategy scored by score_strategy files instead of `replay run`.

    python3 bench/experiments/table_headline.py SPACES.txt SCORES.txt [SPACES2.txt SCORES2.txt ...]

SPACES lists recorded-space files one per line, SCORES is score_strategy's output on them in that order. Every space
of bench/results/anchors-search/all-spaces/blocktune-model.json takes its default score from these files where they
have it, else the table's; Kernel Tuner's best from the table's kt-scores.json.gz. Prints how many spaces score >= 0.6
and how many match or beat Kernel Tuner's best (search_table.versus_best)."""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "anchors"))
import kt_strategies as kt  # noqa: E402
import search_table  # noqa: E402
from compare_scores import load  # noqa: E402

TABLE = os.path.join(kt.REPO, "bench", "results", "anchors-search", "all-spaces")


def scores(spaces_file, scores_file):
    spaces = [line for line in open(spaces_file).read().split("\n") if line]
    values = [score for _, score in load(scores_file)]
    if len(spaces) != len(values):
        sys.exit(f"{spaces_file} lists {len(spaces)} spaces, {scores_file} scores {len(values)}")
    return {os.path.realpath(path): value for path, value in zip(spaces, values)}


def main():
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    given = {}
    for i in range(1, len(sys.argv), 2):
        given.update(scores(sys.argv[i], sys.argv[i + 1]))
    with open(os.path.join(TABLE, "blocktune-model.json")) as f:
        table = json.load(f)
    with gzip.open(os.path.join(TABLE, "kt-scores.json.gz"), "rt") as f:
        kt_scores = json.load(f)
    ids = {os.path.realpath(path): sid for sid, _, path in kt.spaces()}
    above = matched = with_kt = from_files = 0
    for entry in table["spaces"]:
        path = os.path.realpath(os.path.join(kt.REPO, entry["space"]["origin"]))
        sid = ids.get(path)
        if sid is None:  # a copy with today's predictions, named <prefix>__<file>: the recording it copies
            prefix, _, name = os.path.basename(path).partition("__")
            sid = f"{prefix}/{name[:-len('.csv.gz')]}"
        default = given.get(path, entry["strategies"][table["default_strategy"]]["score"])
        from_files += path in given
        above += default >= 0.6
        best = [v["mean_score"] for v in kt_scores.get(sid, {}).values()]
        if best:
            with_kt += 1
            matched += not search_table.versus_best(default, max(best)).startswith("below")
    print(f"{len(table['spaces'])} spaces, {from_files} scored from the files: >= 0.6 on {above}, "
          f"Kernel Tuner's best matched or beaten on {matched} of {with_kt}")


if __name__ == "__main__":
    main()
