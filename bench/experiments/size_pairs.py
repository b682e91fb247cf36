#!/usr/bin/env python3
"""Which other problem size should correct the model (search/include/blocktune/transfer.hpp)?

collect: for each recording of TARGETS, every recording of POOL of the same kernel, device and kind of timing at
another problem size (or the K nearest in element count): the distance in element count (|log ratio|), and what
score_transfer says with that size alone as its pool (SEEDS seeds): the model's distance (SizeTransfer::model_distance,
null where fewer than ten configurations have both predictions) and the default strategy's methodology score when that
size corrects the model; one JSON object a line, appended to OUT (a rerun skips the pairs OUT already has).

rules: the mean score by kernel, and the spaces below 0.6, of the ways of choosing among those pairs: by element
count (the rule before the model distance), by the model's distance among the K nearest, and by both added up.

  python3 bench/experiments/size_pairs.py collect --score-transfer /tmp/score_transfer POOL TARGETS OUT [--nearest K]
  python3 bench/experiments/size_pairs.py rules OUT
"""
import argparse
import collections
import gzip
import json
import math
import os
import subprocess
import tempfile


def read_notes(path):
    """A recording's leading `# key: value` lines."""
    notes = {}
    with gzip.open(path, 'rt') if path.endswith('.gz') else open(path) as f:
        for line in f:
            if not line.startswith('#'):
                break
            if line.startswith('# ') and ':' in line:
                key, value = line[2:].split(':', 1)
                notes[key.strip()] = value.strip()
    return notes


def log_elements(problem):
    return sum(math.log(int(d)) for d in problem.split('x'))


def collect(args):
    pool = [line.strip() for line in open(args.pool) if line.strip()]
    targets = [line.strip() for line in open(args.targets) if line.strip()]
    done = set()
    if os.path.exists(args.out):
        for line in open(args.out):
            row = json.loads(line)
            done.add((row['target'], row['other']))
    recordings = {}

    def recording(path):
        if path not in recordings:
            recordings[path] = read_notes(path)
        return recordings[path]

    with open(args.out, 'a') as out, tempfile.TemporaryDirectory() as scratch:
        one = os.path.join(scratch, 'pool.txt')
        for target in targets:
            notes = recording(target)
            others = []
            for other in pool:
                other_notes = recording(other)
                if any(other_notes.get(k) != notes.get(k) for k in ('kernel', 'device', 'l2')) or other_notes['problem'] == notes['problem']:
                    continue
                others.append((abs(log_elements(other_notes['problem']) - log_elements(notes['problem'])), other))
            others.sort(key=lambda o: o[0])
            for count_distance, other in others[:args.nearest]:
                if (target, other) in done:
                    continue
                with open(one, 'w') as f:
                    f.write(other + '\n')
                run = subprocess.run([args.score_transfer, str(args.seeds), one, target], capture_output=True, text=True)
                fields = run.stdout.splitlines()[-1].split() if run.returncode == 0 and run.stdout else []
                if len(fields) < 9 or fields[4] == '-':
                    print(f'no score for {target} corrected by {other}: {run.stderr[-300:]}')
                    continue
                distance = float(fields[8])
                out.write(json.dumps(dict(target=target, other=other, count_distance=count_distance,
                                          model_distance=distance if math.isfinite(distance) else None,
                                          as_recorded=float(fields[1]), score=float(fields[4]))) + '\n')
                out.flush()


def kernel_of(path):
    return os.path.basename(path).split('-')[0]


def rules(args):
    by_target = collections.defaultdict(list)
    for line in open(args.out):
        row = json.loads(line)
        if row['model_distance'] is None:
            row['model_distance'] = math.inf  # no predictions to compare: as far as can be
        by_target[row['target']].append(row)

    def nearest(k):
        return lambda pairs: sorted(pairs, key=lambda r: r['count_distance'])[:k]

    choices = {'element count': lambda p: min(p, key=lambda r: r['count_distance'])}
    for k in (2, 4, 8, 1000):
        choices[f'model distance of the {k} nearest'] = (
            lambda k: lambda p: min(nearest(k)(p), key=lambda r: (r['model_distance'], r['count_distance'])))(k)
    for weight in (10, 100, 1000):
        choices[f'element count + {weight} x model distance'] = (
            lambda w: lambda p: min(p, key=lambda r: r['count_distance'] + w * r['model_distance']))(weight)
    choices['best of all (hindsight)'] = lambda p: max(p, key=lambda r: r['score'])
    for name, choose in choices.items():
        scores = collections.defaultdict(list)
        below = []
        for target, pairs in by_target.items():
            score = choose(pairs)['score']
            scores[kernel_of(target)].append(score)
            scores['all'].append(score)
            if score < 0.6:
                below.append(target)
        means = ' '.join(f'{k} {sum(v) / len(v):.3f}' for k, v in sorted(scores.items()))
        print(f'{name:40s} {means}  below 0.6: {len(below)} of {len(by_target)}')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    c = sub.add_parser('collect')
    c.add_argument('--score-transfer', required=True, help='a build of bench/experiments/score_transfer.cpp')
    c.add_argument('--seeds', type=int, default=10)
    c.add_argument('--nearest', type=int, default=1000, help='only the K nearest in element count')
    c.add_argument('pool')
    c.add_argument('targets')
    c.add_argument('out')
    r = sub.add_parser('rules')
    r.add_argument('out')
    args = parser.parse_args()
    collect(args) if args.command == 'collect' else rules(args)


if __name__ == '__main__':
    main()
