"""Per kernel: mean score, spaces >= 0.6 and spaces more than 0.05 below `--no-model`, of score_strategy outputs.

    python3 bench/experiments/summarise_scores.py SPACES.txt nm=NO_MODEL.txt NAME=SCORES.txt ...

SPACES lists the spaces one per line in the order every SCORES file scores them; `nm` names the `--no-model` run the
"below" column compares with (0 without it). Prints a Markdown table."""
import re,sys,collections
def rd(f):
    out=[]
    for l in open(f):
        if l.startswith('MEAN'): continue
        m=re.match(r'(\S+) n=(\d+) draws=(\d+)\s+(-?[\d.]+) \+- ([\d.]+)',l)
        if m: out.append((m.group(1),float(m.group(4)),float(m.group(5))))
    return out
spaces=[l for l in open(sys.argv[1]).read().split('\n') if l]
runs=[(a.split('=')[0],rd(a.split('=')[1])) for a in sys.argv[2:]]
nm=dict(runs).get('nm')
for name,r in runs: assert len(r)==len(spaces),(name,len(r),len(spaces))
def kern(f):
    k=f.split('/')[-1].replace('bench__','').split('-')[0]
    return 'stencil' if 'stencil' in k else k
ks=sorted(set(map(kern,spaces)))
print(f"| kernel | spaces | "+" | ".join(f"{n}: mean, >=0.6, below nm" for n,_ in runs)+" |")
print("|---|---|"+"---|"*len(runs))
for k in ks+['all']:
    idx=[i for i,f in enumerate(spaces) if k=='all' or kern(f)==k]
    cells=[]
    for n,r in runs:
        sc=[r[i][1] for i in idx]
        below = sum(r[i][1] < nm[i][1]-0.05 for i in idx) if nm else 0
        cells.append(f"{sum(sc)/len(sc):.3f}, {sum(x>=0.6 for x in sc)}, {below}")
    print(f"| {k} | {len(idx)} | "+" | ".join(cells)+" |")
