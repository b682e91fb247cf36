# compare.py A.json B.json [NOMODEL.json]: per space scores of the default, A vs B
import json, sys, os
def load(p):
    d = json.load(open(p)); out = {}
    for e in d["spaces"]:
        key = os.path.basename(os.path.dirname(e["space"]["origin"])) + "/" + os.path.basename(e["space"]["origin"]).replace(".csv.gz","").replace(".json.gz","")
        key = key.replace("today-all/", "").replace("bench__","").replace("tests__","")
        s = e["strategies"][d["default_strategy"]]["score"]
        out[key] = (s["mean"] if isinstance(s, dict) else s, e["space"].get("corrected_by"))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
nm = load(sys.argv[3]) if len(sys.argv) > 3 else {}
nmk = {k.split("/")[-1]: v for k, v in nm.items()}
keys = [k for k in a if k in b]
worse = better = 0; rows = []
for k in keys:
    sa, sb = a[k][0], b[k][0]
    if sb < sa - 0.05: worse += 1
    if sb > sa + 0.05: better += 1
    rows.append((sb - sa, k, sa, sb))
n = len(keys)
print(f"{n} spaces: mean {sum(a[k][0] for k in keys)/n:.3f} -> {sum(b[k][0] for k in keys)/n:.3f}; >=0.6 {sum(a[k][0]>=0.6 for k in keys)} -> {sum(b[k][0]>=0.6 for k in keys)}; worse/better by >0.05: {worse}/{better}")
if nm:
    below = lambda x: sum(1 for k in keys if k.split('/')[-1] in nmk and x[k][0] < nmk[k.split('/')[-1]][0] - 0.05)
    print(f"more than 0.05 below no-model: {below(a)} -> {below(b)}")
for d, k, sa, sb in sorted(rows):
    if abs(d) > 0.05: print(f"  {d:+.3f} {k:60s} {sa:.3f} -> {sb:.3f}")
