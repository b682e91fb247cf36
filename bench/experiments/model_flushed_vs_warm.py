"""The model's stored predictions against the flushed recordings of bench/results/spaces/h200-flushed-1 and the first
warm H200 recording of the same size elsewhere in bench/results/spaces: Spearman and the best of its top 10 per space,
then per kernel (bench/results/model/README.md, "On recordings timed with the L2 flushed").

usage: python3 bench/experiments/model_flushed_vs_warm.py
"""
import gzip,csv,io,glob,os,math,statistics
def load(p):
    lines=[l for l in gzip.open(p,'rt') if not l.startswith('#')]
    return {r['config']:(float(r['time_s']),float(r['predicted_s'])) for r in csv.DictReader(io.StringIO(''.join(lines))) if r['outcome']=='ok' and r.get('predicted_s')}
def spear(a,b):
    n=len(a)
    def rk(x):
        o=sorted(range(n),key=lambda i:x[i]); r=[0]*n
        for i,j in enumerate(o): r[j]=i
        return r
    ra,rb=rk(a),rk(b); m=(n-1)/2
    return sum((x-m)*(y-m) for x,y in zip(ra,rb))/sum((x-m)**2 for x in ra)
def figs(d):
    ks=list(d); t=[d[k][0] for k in ks]; p=[d[k][1] for k in ks]
    top=sorted(ks,key=lambda k:d[k][1])[:10]; opt=min(t)
    return spear(p,t), min(d[k][0] for k in top)/opt
rows=[]
for f in sorted(glob.glob('bench/results/spaces/h200-flushed-1/*.csv.gz')):
    name=os.path.basename(f)
    warm=[w for w in sorted(glob.glob('bench/results/spaces/*/'+name)) if 'flushed' not in w and 'unscored' not in w]
    fs,ft=figs(load(f))
    if warm:
        ws,wt=figs(load(warm[0])); rows.append((name[:-len('-h200.csv.gz')],fs,ft,ws,wt,warm[0].split('/')[-2]))
    else: rows.append((name[:-len('-h200.csv.gz')],fs,ft,None,None,''))
for r in rows:
    print(f"| {r[0]} | {r[1]:.2f} / {r[2]:.3f}x | " + (f"{r[3]:.2f} / {r[4]:.3f}x | {r[5]} |" if r[3] is not None else "- | |"))
both=[r for r in rows if r[3] is not None]
print(len(rows), len(both))
for fam in ('sum_of_squares','transpose','conv2d','matmul'):
    b=[r for r in both if r[0].startswith(fam)]
    if b: print(fam, len(b), 'flushed mean Spearman %.3f top10<=1.03: %d'%(statistics.mean(r[1] for r in b), sum(r[2]<=1.03 for r in b)), 'warm %.3f %d'%(statistics.mean(r[3] for r in b), sum(r[4]<=1.03 for r in b)))
