"""The model's figures per kernel, before and after a change to the model: Spearman, the model's favourite over the
optimum and the best of its top 10 over the optimum, mean over the recordings whose predictions the change moved.

  python3 model_figures.py BASE_DIR VARIANT_DIR

Each directory holds the copies `test_model "[.todays-predictions-everywhere]"` wrote (run from it), with the model
before and after; a recording without a copy in BASE_DIR is read from the repository (its stored predictions are
the model's before). Run from the repository root.
"""
import gzip,csv,glob,os,sys,statistics as st,collections
def load(p):
    meta={};lines=[]
    for l in gzip.open(p,'rt'):
        if l.startswith('#'):
            if ':' in l: k,v=l[2:].split(':',1); meta[k.strip()]=v.strip()
        else: lines.append(l)
    rows=list(csv.DictReader(lines))
    return meta,rows
def key(meta,rows):
    return (meta.get('kernel'),meta.get('problem'),meta.get('device'),round(sum(float(r['time_s']) for r in rows if r['outcome']=='ok'),12))
def ranks(v):
    o=sorted(range(len(v)),key=lambda i:v[i]); r=[0]*len(v); i=0
    while i<len(o):
        j=i
        while j+1<len(o) and v[o[j+1]]==v[o[i]]: j+=1
        for k in range(i,j+1): r[o[k]]=(i+j)/2
        i=j+1
    return r
def spearman(a,b):
    ra,rb=ranks(a),ranks(b); m=(len(a)-1)/2
    sab=sum((x-m)*(y-m) for x,y in zip(ra,rb)); saa=sum((x-m)**2 for x in ra); sbb=sum((y-m)**2 for y in rb)
    return sab/(saa*sbb)**.5 if saa>0 and sbb>0 else 0
def figures(rows):
    ok=[r for r in rows if r['outcome']=='ok']
    t=[float(r['time_s']) for r in ok]; p=[float(r['predicted_s']) for r in ok]
    opt=min(t); order=sorted(range(len(ok)),key=lambda i:p[i])
    return spearman(t,p), t[order[0]]/opt, min(t[i] for i in order[:10])/opt
originals={}
for f in glob.glob('tests/data/spaces/*.csv.gz')+glob.glob('bench/results/spaces/**/*.csv.gz',recursive=True):
    if '-unscored-' in f: continue
    m,r=load(f); originals[key(m,r)]=(f,m,r)
base={}
for f in glob.glob(os.path.join(sys.argv[1],'*.csv.gz')):
    m,r=load(f); base[key(m,r)]=r
agg=collections.defaultdict(list)
for f in glob.glob(os.path.join(sys.argv[2],'*.csv.gz')):
    m,r=load(f); k=key(m,r)
    if k not in originals: print('no original',f); continue
    b=base.get(k, originals[k][2])
    kern=m['kernel']; kern='stencil' if kern.startswith('stencil') else kern
    agg[kern].append((figures(b),figures(r)))
for kern,v in sorted(agg.items()):
    fb=[x[0] for x in v]; fv=[x[1] for x in v]
    print(f"{kern:16s} n={len(v):4d} Spearman {st.mean(a[0] for a in fb):.3f} -> {st.mean(a[0] for a in fv):.3f}  fav {st.mean(a[1] for a in fb):.3f}x -> {st.mean(a[1] for a in fv):.3f}x  top10 {st.mean(a[2] for a in fb):.3f}x -> {st.mean(a[2] for a in fv):.3f}x")
