"""Summarises small_grid_l2.sh's logs: per configuration and mode, the median of its rounds' medians, and each
configuration's time over the optimum's (the file's last configuration) in each mode.

usage: small_grid_l2_summary.py LOG [LOG ...]
"""
import re
import statistics
import sys

times = {}  # (config, mode): [ms]
order = []
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r"round \d+ (--\S+) \S+ \S+ (\S+): ([\d.]+) ms median", line)
        if not m:
            continue
        mode, config, ms = m.group(1), m.group(2), float(m.group(3))
        times.setdefault((config, mode), []).append(ms)
        if config not in order:
            order.append(config)
optimum = order[-1]
print("| configuration | warm (ms) | flushed (ms) | warm / optimum warm | flushed / optimum flushed |")
print("|---|---|---|---|---|")
ratio = {}
for config in order:
    w, f = (statistics.median(times[(config, mode)]) for mode in ("--warm-l2", "--flush-l2"))
    ratio[config] = (w, f)
for config in order:
    w, f = ratio[config]
    short = re.sub(r"strategy=RING,zloop=REG,|vx=4,py=2,fused_steps=1,", "", config)
    print(f"| {short} | {w:.4f} | {f:.4f} | {w / ratio[optimum][0]:.3f} | {f / ratio[optimum][1]:.3f} |")
top10 = order[:-1]
print(f"\nbest of the model's top 10 over the optimum: warm {min(ratio[c][0] for c in top10) / ratio[optimum][0]:.3f}, "
      f"flushed {min(ratio[c][1] for c in top10) / ratio[optimum][1]:.3f}")
