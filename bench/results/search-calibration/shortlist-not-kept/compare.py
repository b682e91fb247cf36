# usage: compare.py NO_MODEL.json BASE.json [VARIANT.json ...]: per file, the mean score over the spaces, how many
# reach 0.6, how many are more than 0.05 below --no-model (and by more than 0.05 + two standard errors of the
# difference), and against BASE how many are better or worse by more than 0.05. (replay run --json files.)
import json, sys, math
def load(p):
    j = json.load(open(p)); out = {}
    for e in j["spaces"]:
        o = e["space"]["origin"]
        sid = o.split("/")[-1].replace(".csv.gz", "")
        sid = sid.replace("__", "/") if "today-all" in o else ("/".join(o.split("/")[-2:])).replace(".csv.gz", "")
        s = e["strategies"]["surrogate"]
        out[sid] = (s["score"], s.get("score_standard_error", 0))
    return out
n = load(sys.argv[1]); base = None
for p in sys.argv[2:]:
    x = load(p); keys = sorted(k for k in x if k in n)
    below = [k for k in keys if x[k][0] < n[k][0] - 0.05]
    sure = [k for k in below if x[k][0] < n[k][0] - 0.05 - 2*math.hypot(x[k][1], n[k][1])]
    line = f"{p.split('/')[-1]:28s} n={len(keys)} mean {sum(x[k][0] for k in keys)/len(keys):.3f}  >=0.6 {sum(x[k][0]>=0.6 for k in keys):3d}  below no-model>0.05 {len(below):2d} (2SE {len(sure)})"
    if base:
        better = sum(x[k][0] > base[k][0] + 0.05 for k in keys); worse = sum(x[k][0] < base[k][0] - 0.05 for k in keys)
        line += f"  vs first: better {better} worse {worse}"
    else: base = x
    print(line)
