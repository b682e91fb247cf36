# significance.py SE-CORRECTED SE-NONE: item 2's comparison per space with its standard error (100 seeds)
import re, sys, math
def parse_transfer(p):
    out = {}
    for line in open(p):
        m = re.match(r"(\S+)\s+(-?[\d.]+) \+- ([\d.]+)\s+(-?[\d.]+) \+- ([\d.]+)", line)
        if m: out[m[1].split("/")[-1] + "|" + m[1]] = (float(m[2]), float(m[3]), float(m[4]), float(m[5]))
    return out
def parse_none(p):
    out = []
    for line in open(p):
        m = re.match(r"(\S+) n=\d+ draws=\d+\s+(-?[\d.]+) \+- ([\d.]+)", line)
        if m: out.append((m[1], float(m[2]), float(m[3])))
    return out
t = parse_transfer(sys.argv[1]); n = parse_none(sys.argv[2])
keys = list(t)
assert len(keys) == len(n)
rows = []
for k, (name, nm, nse) in zip(keys, n):
    assert k.startswith(name.split("/")[-1]), (k, name)
    am, ase, cm, cse = t[k]
    rows.append((k.split("|")[1], am, ase, cm, cse, nm, nse))
for label, i in (("as recorded", 1), ("corrected", 3)):
    below = [(r[0], r[i], r[5], math.hypot(r[i + 1], r[6])) for r in rows if r[i] < r[5] - 0.05]
    sure = [b for b in below if b[1] - b[2] + 2 * b[3] < -0.05]
    print(f"{label}: {len(below)} of {len(rows)} more than 0.05 below --no-model; of them {len(sure)} by more than 0.05 + 2 standard errors")
    for b in below:
        print(f"    {b[0].replace('/work/main/', ''):95s} {b[1]:.3f} vs {b[2]:.3f} (difference {b[1]-b[2]:+.3f} +- {b[3]:.3f}){'  beyond 2 SE' if b in sure else ''}")
ses = sorted(max(r[2], r[4], r[6]) for r in rows)
print(f"standard error of a space's 100-seed mean: median {ses[len(ses)//2]:.3f}, largest {ses[-1]:.3f}")
