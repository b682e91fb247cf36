#!/usr/bin/env python3
"""How fast are the configurations in the middle of a space? For each recorded space (.csv.gz) or Kernel Tuner
cache (.json.gz): the time rank (0 fastest, 1 slowest, failures 1) of the configurations nearest the middle of every
numeric parameter's range, and of the nearest 5%. Distance: the sum over numeric parameters with 3 or more values of
|value rank - middle rank| / (values - 1): the nearest are what the surrogate measures first without a model
(search/surrogate.cpp, least_measured_values).
Evidence for bench/results/search-calibration/README.md, "Covering from the middle outwards".

    python3 bench/experiments/central_configs.py tests/data/spaces/*.csv.gz bench/results/spaces/*.csv.gz ../shared/spaces/public/*.json.gz
"""
import csv
import gzip
import io
import json
import statistics
import sys
def load(path):
    if path.endswith('.json.gz'):
        d = json.load(gzip.open(path, 'rt'))
        names = list(d['tune_params'].keys()); vals = d['tune_params']
        rows = []
        for k, v in d['cache'].items():
            t = v.get('time')
            t = float(t) if isinstance(t, (int, float)) else None
            rows.append(([v[n] for n in names], t))
        return names, [vals[n] for n in names], rows
    lines = [l for l in gzip.open(path, 'rt') if not l.startswith('#')]
    r = list(csv.DictReader(io.StringIO(''.join(lines))))
    cfgs = []
    for x in r:
        kv = [p.split('=') for p in x['config'].split(',')]
        cfgs.append(([v for k, v in kv], float(x['time_s']) if x['outcome'] == 'ok' else None))
    names = [k for k, v in [p.split('=') for p in r[0]['config'].split(',')]]
    def conv(v):
        try: return int(v)
        except ValueError: return v
    vals = []
    for i in range(len(names)):
        s = set(conv(c[0][i]) for c in cfgs)
        vals.append(sorted(s, key=lambda v: (isinstance(v, str), v)))
    rows = [([conv(v) for v in c], t) for c, t in cfgs]
    return names, vals, rows
for path in sys.argv[1:]:
    names, vals, rows = load(path)
    ok = sorted(t for _, t in rows if t is not None)
    def pct(t): return sum(1 for x in ok if x < t) / len(ok) if t is not None else 1.0
    def dist(c):
        d = 0
        for i, v in enumerate(c):
            vs = vals[i]
            if len(vs) < 3 or isinstance(v, str): continue
            r = vs.index(v); d += abs(r - (len(vs) - 1) / 2) / (len(vs) - 1)
        return d
    ds = sorted(((dist(c), t) for c, t in rows), key=lambda x: x[0])
    dmin = ds[0][0]
    central = [t for d, t in ds if d <= dmin + 1e-9]
    k = max(1, len(rows) // 20)
    near = [t for d, t in ds[:k]]
    fails = sum(1 for _, t in rows if t is None) / len(rows)
    print(f"{path.split('/')[-1][:50]:50} n={len(rows):6} fail={fails:.2f} central({len(central)}) pct={statistics.mean(pct(t) for t in central):.2f}  nearest5% pct={statistics.mean(pct(t) for t in near):.2f} fail={sum(t is None for t in near)/len(near):.2f}")
