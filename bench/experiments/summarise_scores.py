"""Per kernel: mean score, spaces >= 0.6 and spaces more than 0.05 below `--no-model`, of score_strategy outputs.

    python3 bench/experiments/summarise_scores.py SPACES.txt nm=NO_MODEL.txt NAME=SCORES.txt ...

SPACES lists the spaces one per line in the order every SCORES file scores them; `nm` names the `--no-model` run the
"below" column compares with (0 without it). Prints a Markdown table."""
import os
import sys

from compare_scores import load


def kernel_of(path):
    name = os.path.basename(path).replace("bench__", "").split("-")[0]
    return "stencil" if "stencil" in name else name


def main():
    spaces = [line for line in open(sys.argv[1]).read().split("\n") if line]
    runs = []
    for argument in sys.argv[2:]:
        name, _, path = argument.partition("=")
        scores = [score for _, score in load(path)]
        if len(scores) != len(spaces):
            sys.exit(f"{path} scores {len(scores)} spaces, {sys.argv[1]} lists {len(spaces)}")
        runs.append((name, scores))
    no_model = dict(runs).get("nm")
    print("| kernel | spaces | " + " | ".join(f"{name}: mean, >=0.6, below nm" for name, _ in runs) + " |")
    print("|---|---|" + "---|" * len(runs))
    for kernel in sorted(set(map(kernel_of, spaces))) + ["all"]:
        chosen = [i for i, path in enumerate(spaces) if kernel in ("all", kernel_of(path))]
        cells = []
        for _, scores in runs:
            mine = [scores[i] for i in chosen]
            below = sum(scores[i] < no_model[i] - 0.05 for i in chosen) if no_model else 0
            cells.append(f"{sum(mine) / len(mine):.3f}, {sum(x >= 0.6 for x in mine)}, {below}")
        print(f"| {kernel} | {len(chosen)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
