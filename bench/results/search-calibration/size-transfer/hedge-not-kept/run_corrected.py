# usage: run_corrected.py BINARY OUT.json [include-pattern ...] ; env EXCLUDE (comma patterns) for spaces and pool
import sys, os, fnmatch, subprocess, time
sys.path.insert(0, "/work/main/bench/anchors")
import kt_strategies as kt, search_table as st
binary, out = sys.argv[1], sys.argv[2]
include = sys.argv[3:]
exclude = [e for e in os.environ.get("EXCLUDE", "").split(",") if e]
extra_pool = [p for p in os.environ.get("EXTRA_POOL", "").split(",") if p]
def keep(s): return not any(e in s[2] for e in exclude)
allsp = [s for s in kt.spaces() if keep(s)]
spaces = [s for s in allsp if not include or any(fnmatch.fnmatch(s[0], p) for p in include)]
only = os.environ.get("ONLY")
if only: spaces = [s for s in spaces if only in s[2]]
spaces += [(p, "csv", p) for p in os.environ.get("EXTRA_SPACES", "").split(",") if p]
consistent, n = st.with_predictions_from(os.environ.get("PREDICTIONS", "/tmp/today-all"), spaces)
pool, _ = st.with_predictions_from(os.environ.get("PREDICTIONS", "/tmp/today-all"), allsp)
sizes = [p for _, k, p in pool if k != "kt"] + extra_pool
cmd = [binary, "replay", "run"] + st.space_arguments(consistent) + ["--strategies", "surrogate", "--seeds", os.environ.get("SEEDS", "10"), "--json", out]
if os.environ.get("NO_MODEL"): cmd.append("--no-model")
elif not os.environ.get("UNCORRECTED"):
    for p in sizes: cmd += ["--sizes-from", st.rel(p)]
t = time.time()
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd="/work/main")
print(f"{len(spaces)} spaces ({n} consistent copies), pool {len(sizes)}, {time.time()-t:.0f} s", file=sys.stderr)
