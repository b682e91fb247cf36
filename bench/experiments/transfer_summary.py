#!/usr/bin/env python3
"""score_transfer outputs (bench/experiments/score_transfer.cpp) against `score_strategy surrogate none` over the same
spaces in the same order: per output, the corrected column's mean (all and by kernel), the spaces >= 0.6, and those
more than 0.05 below --no-model (in brackets, by more than two standard errors of the difference); with --below, the
spaces below 0.6 or below --no-model; with --moved, those that moved by more than 0.02 from the first output.

    python3 bench/experiments/transfer_summary.py NO_MODEL.txt BEFORE.txt [AFTER.txt ...] [--below] [--moved]
"""
import math
import os
import re
import sys

KERNELS = ('sum_of_squares', 'transpose', 'matmul', 'conv2d', 'stencil')


def no_model_scores(path):
    """One (mean, standard error) per space line, in order."""
    scores = []
    for line in open(path):
        if '.csv.gz' in line:
            match = re.search(r'\s([-\d.]+) \+- ([\d.]+)\s*$', line)
            scores.append((float(match.group(1)), float(match.group(2))) if match else None)
    return scores


def corrected_scores(path):
    """(space, (mean, standard error)) per space line, in order: the corrected column, else the recorded one."""
    rows = []
    for line in open(path):
        fields = line.split()
        if not fields or not fields[0].endswith('.csv.gz'):
            continue
        match = re.match(r'(\S+)\s+([-\d.]+) \+- ([\d.]+)\s+([-\d.]+|-) (?:\+- ([\d.]+))?', line)
        if not match:
            rows.append((fields[0], None))
        elif match.group(4) == '-':
            rows.append((fields[0], (float(match.group(2)), float(match.group(3)))))
        else:
            rows.append((fields[0], (float(match.group(4)), float(match.group(5)))))
    return rows


def short(space):
    return '/'.join(space.split('/')[-2:])


def main():
    paths = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(paths) < 2:
        sys.exit(__doc__)
    no_model = no_model_scores(paths[0])
    first = corrected_scores(paths[1])
    for path in paths[1:]:
        rows = corrected_scores(path)
        if len(rows) != len(no_model) or [s for s, _ in rows] != [s for s, _ in first]:
            sys.exit(f'{path}: not the spaces of {paths[0]} and {paths[1]} in the same order')
        kept = [(i, s, x) for i, (s, x) in enumerate(rows) if x and no_model[i]]
        below = [(i, s, x) for i, s, x in kept if x[0] < no_model[i][0] - 0.05]
        beyond = [r for r in below if r[2][0] < no_model[r[0]][0] - 0.05 - 2 * math.hypot(r[2][1], no_model[r[0]][1])]
        by_kernel = []
        for kernel in KERNELS:
            scores = [x[0] for _, s, x in kept if os.path.basename(s).replace('__', '/').split('/')[-1].startswith(kernel)]
            if scores:
                by_kernel.append(f'{kernel} {sum(scores) / len(scores):.3f} ({len(scores)})')
        print(f'{os.path.basename(path)}: {len(kept)} spaces, mean {sum(x[0] for *_, x in kept) / len(kept):.3f}, '
              f'>= 0.6 on {sum(x[0] >= 0.6 for *_, x in kept)}, more than 0.05 below --no-model on {len(below)} ({len(beyond)}); '
              + ', '.join(by_kernel))
        if '--below' in sys.argv:
            for i, s, x in kept:
                if x[0] < 0.6 or x[0] < no_model[i][0] - 0.05:
                    print(f'    {short(s):70s} {x[0]:.3f} (--no-model {no_model[i][0]:.3f})')
        if '--moved' in sys.argv and path != paths[1]:
            for i, s, x in kept:
                if first[i][1] and abs(x[0] - first[i][1][0]) > 0.02:
                    print(f'    {short(s):70s} {first[i][1][0]:.3f} -> {x[0]:.3f} (--no-model {no_model[i][0]:.3f})')


if __name__ == '__main__':
    main()
