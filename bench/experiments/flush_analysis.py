"""Summarises bench/experiments/flush_repeats.sh's four databases (warm-1, warm-2, flushed-1, flushed-2 in FOLDER).

usage: flush_analysis.py FOLDER

Per space: how far a configuration's time moves between the two recordings of each mode (the standard deviation of
the log ratio of their medians); the other recording's optimum, measured on this one (both ways); the fastest time;
each mode's optima measured warm (on the geometric mean of the two warm recordings: what a flushed tune's winner
costs an application whose data stays in L2); the model's Spearman and the best of its top 10 on each recording
(from the predictions `tune` stored).
"""
import math
import sqlite3
import statistics
import sys


def load(path):
    """{(kernel, problem): {config: (median ms, predicted ms)}} of a database's trials that ran."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    spaces = {}
    query = ("select k.name, p.dims, t.config, t.median_ms, t.predicted_ms from trials t join problems p on "
             "p.id = t.problem_id join kernels k on k.id = t.kernel_id where t.outcome = 'ok'")
    for kernel, dims, config, median, predicted in db.execute(query):
        spaces.setdefault((kernel, dims), {})[config] = (median, predicted)
    return spaces


def spearman(a, b):
    def ranks(x):
        order = sorted(range(len(x)), key=lambda i: x[i])
        r = [0] * len(x)
        for rank, i in enumerate(order):
            r[i] = rank
        return r
    ra, rb = ranks(a), ranks(b)
    mid = (len(a) - 1) / 2
    return sum((x - mid) * (y - mid) for x, y in zip(ra, rb)) / sum((x - mid) ** 2 for x in ra)


def main():
    folder = sys.argv[1]
    w1, w2, f1, f2 = (load(f"{folder}/{name}.db") for name in ("warm-1", "warm-2", "flushed-1", "flushed-2"))
    print("| space | configs | warm: sd between recordings | warm: other's optimum | flushed: sd | flushed: other's "
          "optimum | fastest warm / flushed (us) | measured warm: flushed optima | measured warm: warm optima | "
          "model Spearman warm / flushed | model top 10 warm / flushed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(w1):
        configs = [c for c in w1[key] if all(key in d and c in d[key] for d in (w2, f1, f2))]
        time = {name: {c: d[key][c][0] for c in configs} for name, d in (("w1", w1), ("w2", w2), ("f1", f1), ("f2", f2))}
        optimum = {name: min(configs, key=t.get) for name, t in time.items()}

        def between(a, b):
            sd = statistics.pstdev([math.log(time[a][c] / time[b][c]) for c in configs])
            other = (time[a][optimum[b]] / time[a][optimum[a]], time[b][optimum[a]] / time[b][optimum[b]])
            return sd, other

        sd_w, other_w = between("w1", "w2")
        sd_f, other_f = between("f1", "f2")
        warm = {c: math.sqrt(time["w1"][c] * time["w2"][c]) for c in configs}
        best_warm = min(warm.values())
        predicted = [w1[key][c][1] for c in configs]
        top10 = sorted(configs, key=lambda c: w1[key][c][1])[:10]
        model = {name: (spearman(predicted, [t[c] for c in configs]), min(t[c] for c in top10) / t[optimum[name]])
                 for name, t in time.items()}
        print(f"| {key[0]} {key[1]} | {len(configs)} | {sd_w:.1%} | {other_w[0]:.3f} / {other_w[1]:.3f} | {sd_f:.1%} | "
              f"{other_f[0]:.3f} / {other_f[1]:.3f} | {1000 * min(time['w1'].values()):.1f} / "
              f"{1000 * min(time['f1'].values()):.1f} | {warm[optimum['f1']] / best_warm:.3f} / "
              f"{warm[optimum['f2']] / best_warm:.3f} | {warm[optimum['w1']] / best_warm:.3f} / "
              f"{warm[optimum['w2']] / best_warm:.3f} | {model['w1'][0]:.2f}, {model['w2'][0]:.2f} / "
              f"{model['f1'][0]:.2f}, {model['f2'][0]:.2f} | {model['w1'][1]:.3f}, {model['w2'][1]:.3f} / "
              f"{model['f1'][1]:.3f}, {model['f2'][1]:.3f} |")


if __name__ == "__main__":
    main()
