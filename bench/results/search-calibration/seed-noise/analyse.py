import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../experiments"))
from compare_replays import load as load_with_errors  # noqa: E402
d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/s20/noise"
def load(p):
    scores, seeds = load_with_errors(p)
    return {sid: score for sid, (score, _) in scores.items()}, seeds
a, seeds = load(f"{d}/as-recorded.json"); c, _ = load(f"{d}/corrected.json"); n, _ = load(f"{d}/no-model.json")
keys = sorted(a)
print(f"{len(keys)} spaces, {seeds} seeds")
for name, x in (("as recorded", a), ("corrected", c)):
    below = [k for k in keys if x[k] < n[k] - 0.05]
    print(f"{name}: mean {sum(x[k] for k in keys)/len(keys):.3f}, >=0.6 {sum(x[k]>=0.6 for k in keys)}, below no-model by >0.05: {len(below)}")
    for k in below: print(f"    {k:70s} {x[k]:.3f} vs {n[k]:.3f}")
print(f"no-model: mean {sum(n[k] for k in keys)/len(keys):.3f}, >=0.6 {sum(n[k]>=0.6 for k in keys)}")
for name, x in (("as recorded", a), ("corrected", c)):
    print(name, "below 0.6:", ", ".join(f"{k} {x[k]:.2f}" for k in keys if x[k] < 0.6))
