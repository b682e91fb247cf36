"""Per kernel family and GPU, the model's Spearman and best-of-top-10 in two logs of build/tests/model/test_model
(before and after a model or spec change): python3 compare_model_logs.py before.log after.log"""
import re,sys,collections,statistics
def parse(f):
    d=collections.OrderedDict()
    for l in open(f):
        m=re.match(r"(\S+\.csv\.gz)\s+(\d+)\s+Spearman\s+(-?[\d.]+).*?top-10 best\s+([\d.]+)x",l)
        if m: d.setdefault(m.group(1),(float(m.group(3)),float(m.group(4)))); continue
        m=re.match(r"(\S+\.csv\.gz)\s+(\d+)\s+(-?[\d.]+)\s+([\d.]+)x\s+\d+$",l.strip())
        if m: d.setdefault('T:'+m.group(1),(float(m.group(3)),float(m.group(4))))
    return d
a=parse(sys.argv[1]); b=parse(sys.argv[2])
fam=collections.defaultdict(list)
for k in a:
    if k in b:
        kk=('T:' if k.startswith('T:') else '')+re.match(r"(?:T:)?(?:bench__)?([a-z_0-9]+?)-\d",k).group(1)+('-h200' if 'h200' in k else '-h100')
        fam[kk].append((a[k],b[k]))
for k,v in sorted(fam.items()):
    print(f"{k:22s} n={len(v):3d} spearman {statistics.mean(x[0][0] for x in v):.3f} -> {statistics.mean(x[1][0] for x in v):.3f}  top10 {statistics.mean(x[0][1] for x in v):.3f} -> {statistics.mean(x[1][1] for x in v):.3f}  top10<=1.03: {sum(x[0][1]<=1.03 for x in v)} -> {sum(x[1][1]<=1.03 for x in v)}")
