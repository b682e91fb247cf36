#!/usr/bin/env python3
"""Kernel Tuner 1.5's search strategies on every recorded and public space, in simulation mode.

For each space (the public Kernel Tuner caches beside the repository, tests/data/spaces, bench/results/spaces)
and each strategy, runs Kernel Tuner's strategy once per seed on the CPU (simulation mode replays a cache file),
and writes the configurations each run evaluated, in order, as a search-sequence file that
`blocktune replay score` scores with blocktune's own methodology code (search_table.py does that):

    bench/results/anchors-search/kt/<space id>/<strategy>.json.gz

Those files are the cache of this script: an existing one is kept unless --force. The space ids are
public/<cache name>, tests/<file stem>, bench/<file stem> and, for a space measured again, repeat-N/<file stem>;
flushed/ and flushed-repeat-N/ for the recordings timed with the L2 flushed, warm-N/ and warm-N-repeat-K/ for the
warm sets whose sizes may repeat an earlier warm recording's (bench/results/spaces/*-held-out-warm-N).

Budget: each run may evaluate max_fevals = 2 x the number of configurations random search affords within the
methodology's time budget (`blocktune replay score --space S` prints both: budget_s, mean_cost_s,
random_evaluations_in_budget), at least 20 and at most the space. Kernel Tuner's own simulated-time limit is not
used; the score charges every configuration its recorded cost on blocktune's clock, as for blocktune's strategies.

Kernel Tuner is not vendored: the script runs under a Python that has kernel_tuner 1.5.0 (--python, or
$BLOCKTUNE_KT_PYTHON), else creates a virtual environment under the cache directory
(${XDG_CACHE_HOME:-~/.cache}/blocktune/kernel-tuner-1.5.0) and pip-installs kernel-tuner==1.5.0 into it.

    python3 bench/anchors/kt_strategies.py run [--strategies a,b] [--spaces GLOB] [--seeds 10] [--jobs 1]
                                               [--seeds-for bayes_opt=3 bayes_opt_patched=3]
    python3 bench/anchors/kt_strategies.py list      # the spaces and their ids
"""

import argparse
import csv
import fnmatch
import glob
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "bench", "results", "anchors-search")
KT_VERSION = "1.5.0"

# Kernel Tuner strategies compared, with the seeds each gets by default (bayes_opt is slow on large spaces).
STRATEGIES = ["random_sample", "genetic_algorithm", "dual_annealing", "bayes_opt", "bayes_opt_patched", "greedy_ils",
              "simulated_annealing", "pso", "firefly_algorithm", "diff_evo"]
DEFAULT_SEEDS = 10
# Fewer seeds for the slow ones: a GEMM run of bayes_opt takes 2-5 CPU minutes.
DEFAULT_SEEDS_FOR = {"bayes_opt": 3, "bayes_opt_patched": 3}
# Kernel Tuner 1.5.0's bayes_opt takes a failed configuration for a valid one: the cost function gives it
# sys.float_info.max (util.get_result_cost), while bayes_opt recognises only its own invalid value, 1e20; the
# Gaussian process then learns from 1.8e308 and its predictions turn to NaN. "bayes_opt_patched" is bayes_opt with
# failures costed 1e20, as bayes_opt intends (it then leaves them out of its model). It differs from bayes_opt only
# on spaces with failed configurations, so it runs only there (the public pnpoly caches).
PATCHED = {"bayes_opt_patched": "bayes_opt"}
# Each run may evaluate at most FEVALS_FACTOR x the configurations random search affords within the budget.
FEVALS_FACTOR = 2
MIN_FEVALS = 20
# A run stops once Kernel Tuner has asked for GUARD_FACTOR x max_fevals evaluations, repeats (answered from its
# cache) included: a strategy stuck in configurations it has already evaluated would otherwise never reach
# max_fevals. Such runs are marked "stopped": "repeats guard".
GUARD_FACTOR = 50
# At most this many calls of a strategy per run (restarts of runs that end before the budget is spent).
MAX_CALLS = 100


def public_dir():
    for candidate in (os.environ.get("BLOCKTUNE_PUBLIC_SPACES"), os.path.join(REPO, "shared", "spaces", "public"),
                      os.path.join(os.path.dirname(REPO), "shared", "spaces", "public")):
        if candidate and os.path.isdir(candidate):
            return candidate
    sys.exit("kt_strategies: no public spaces: set BLOCKTUNE_PUBLIC_SPACES to shared/spaces/public")


def timing_set(path):
    """The id prefix of a recording in a set folder that names its timing (or in that folder's repeat-K/): 'flushed' for
    *-flushed-*, 'warm-N' for *-held-out-warm-N; '' elsewhere."""
    parts = os.path.relpath(path, REPO).split(os.sep)
    folder = parts[3] if len(parts) > 4 and parts[:3] == ["bench", "results", "spaces"] else ""
    if "-flushed-" in folder:
        return "flushed"
    return "warm-" + folder.rsplit("-", 1)[1] if "-held-out-warm-" in folder else ""


def spaces():
    """Every space as (id, kind, path): kind 'kt' for a Kernel Tuner cache, 'csv' for a recorded-space file."""
    found = []
    for path in sorted(glob.glob(os.path.join(public_dir(), "*.json.gz"))):
        found.append(("public/" + os.path.basename(path)[:-len(".json.gz")], "kt", path))
    # bench/results/spaces/*-held-out-*: the recordings kept out of every development, one folder per set.
    for pattern, prefix in (("tests/data/spaces/*.csv.gz", "tests"), ("bench/results/spaces/*.csv.gz", "bench"),
                            ("bench/results/spaces/*-held-out-*/*.csv.gz", "bench")):
        for path in sorted(glob.glob(os.path.join(REPO, pattern))):
            if not timing_set(path):
                found.append((prefix + "/" + os.path.basename(path)[:-len(".csv.gz")], "csv", path))
    # repeat-N/: the same spaces measured again (same kernel, problem and GPU kind), id repeat-N/<file stem>.
    for pattern in ("bench/results/spaces/h100-repeats/repeat-*/*.csv.gz",
                    "bench/results/spaces/*-held-out-*/repeat-*/*.csv.gz"):
        for path in sorted(glob.glob(os.path.join(REPO, pattern))):
            repeat = os.path.basename(os.path.dirname(path))
            if not timing_set(path):
                found.append((repeat + "/" + os.path.basename(path)[:-len(".csv.gz")], "csv", path))
    # Set folders that name their timing, whose file names may repeat other recordings': bench/results/spaces/
    # *-held-out-warm-N, timed warm at sizes an earlier warm set may have had too (ids warm-N/<file stem> and
    # warm-N-repeat-K/<file stem>), and *-flushed-*, timed with the L2 flushed (tune's default since schema 7), other
    # spaces than the warm recordings of the same file names (flushed/<file stem>, flushed-repeat-K/<file stem>).
    for pattern in ("bench/results/spaces/*-held-out-warm-*/*.csv.gz", "bench/results/spaces/*-held-out-warm-*/repeat-*/*.csv.gz",
                    "bench/results/spaces/*-flushed-*/*.csv.gz", "bench/results/spaces/*-flushed-*/repeat-*/*.csv.gz"):
        for path in sorted(glob.glob(os.path.join(REPO, pattern))):
            folder = os.path.basename(os.path.dirname(path))
            prefix = timing_set(path) + ("-" + folder if folder.startswith("repeat-") else "")
            found.append((prefix + "/" + os.path.basename(path)[:-len(".csv.gz")], "csv", path))
    ids = {}
    for sid, _, path in found:  # an id names a cache folder of sequences: two recordings must not share one
        if sid in ids:
            sys.exit(f"kt_strategies: {os.path.relpath(ids[sid], REPO)} and {os.path.relpath(path, REPO)} would share the "
                     f"space id {sid}; give one of them another file or repeat-N folder name")
        ids[sid] = path
    return found


def select(all_spaces, patterns):
    if not patterns:
        return all_spaces
    chosen = [s for s in all_spaces if any(fnmatch.fnmatch(s[0], p) for p in patterns)]
    if not chosen:
        sys.exit(f"kt_strategies: no space matches {patterns}; see `kt_strategies.py list`")
    return chosen


def blocktune_binary():
    binary = os.environ.get("BLOCKTUNE", os.path.join(REPO, "build", "cli", "blocktune"))
    if not os.access(binary, os.X_OK):
        sys.exit(f"kt_strategies: no blocktune binary at {binary} (build it, or set BLOCKTUNE)")
    return binary


def space_facts(kind, path):
    """The methodology's budget for the space, from blocktune (one source of truth)."""
    option = "--kernel-tuner-cache" if kind == "kt" else "--space"
    out = subprocess.run([blocktune_binary(), "replay", "score", option, path], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def sequence_file(space_id, strategy):
    return os.path.join(RESULTS, "kt", space_id, strategy + ".json.gz")


# ---------------------------------------------------------------------------------------------------------
# Kernel Tuner: found or installed, then the script runs again under that Python with PYTHONHASHSEED=0 (the
# order of sets of string-valued configurations must not change between runs).
# ---------------------------------------------------------------------------------------------------------

def has_kernel_tuner(python):
    probe = f"import kernel_tuner, sys; sys.exit(0 if kernel_tuner.__version__ == '{KT_VERSION}' else 1)"
    return subprocess.run([python, "-c", probe], capture_output=True).returncode == 0


def kernel_tuner_python(requested):
    if requested:
        if not has_kernel_tuner(requested):
            sys.exit(f"kt_strategies: {requested} has no kernel_tuner {KT_VERSION}")
        return requested
    if has_kernel_tuner(sys.executable):
        return sys.executable
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    venv = os.path.join(cache, "blocktune", f"kernel-tuner-{KT_VERSION}")
    python = os.path.join(venv, "bin", "python")
    if not (os.path.exists(python) and has_kernel_tuner(python)):
        print(f"kt_strategies: installing kernel-tuner=={KT_VERSION} into {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", f"kernel-tuner=={KT_VERSION}"], check=True)
    return python


def reexec_under_kernel_tuner(args):
    if os.environ.get("BLOCKTUNE_KT_CHILD") == "1":
        return
    python = kernel_tuner_python(args.python or os.environ.get("BLOCKTUNE_KT_PYTHON"))
    env = dict(os.environ, PYTHONHASHSEED="0", BLOCKTUNE_KT_CHILD="1")
    os.execve(python, [python, os.path.abspath(__file__)] + sys.argv[1:], env)


# ---------------------------------------------------------------------------------------------------------
# Spaces as Kernel Tuner caches
# ---------------------------------------------------------------------------------------------------------

INTEGER = re.compile(r"-?[0-9]+\Z")


def parse_config(text):
    """blocktune's canonical configuration text ("a=1,b=BASE", strings possibly quoted) as (name, value) pairs;
    -?[0-9]+ reads as an integer, as Config::parse does."""
    entries, i, n = [], 0, len(text)
    while i < n:
        eq = text.index("=", i)
        name = text[i:eq]
        i = eq + 1
        if i < n and text[i] == '"':
            i += 1
            value = []
            while text[i] != '"':
                if text[i] == "\\":
                    i += 1
                value.append(text[i])
                i += 1
            i += 1
            entries.append((name, "".join(value)))
        else:
            end = text.find(",", i)
            end = n if end < 0 else end
            raw = text[i:end]
            entries.append((name, int(raw) if INTEGER.match(raw) else raw))
            i = end
        if i < n:
            if text[i] != ",":
                raise ValueError(f"bad configuration text {text!r}")
            i += 1
    return entries


def csv_as_cache(path):
    """A recorded-space file as a Kernel Tuner cache: tune_params from the configurations' values (integers in
    ascending order, strings in order of first appearance), time in ms or an error name, compile_time and
    benchmark_time (the rest of cost_s) in ms."""
    with gzip.open(path, "rt", newline="") as f:
        text = f.read()
    notes, body = {}, []
    for line in text.splitlines(keepends=True):
        if line.startswith("#") and not body:
            key, _, value = line[1:].partition(":")
            notes[key.strip()] = value.strip()
        else:
            body.append(line)
    names, values, cache = None, {}, {}
    for row in csv.DictReader(io.StringIO("".join(body))):
        entries = parse_config(row["config"])
        if names is None:
            names = [name for name, _ in entries]
            values = {name: [] for name in names}
        if [name for name, _ in entries] != names:
            raise ValueError(f"{path}: configuration {row['config']} names other parameters")
        for name, value in entries:
            if value not in values[name]:
                values[name].append(value)
        cost_ms = float(row["cost_s"]) * 1000
        compile_ms = float(row["compile_s"]) * 1000 if row.get("compile_s") else 0.0
        entry = dict(entries)
        if row["time_s"]:  # as blocktune reads it: a time is a success
            entry["time"] = float(row["time_s"]) * 1000
        else:
            entry["time"] = "CompilationFailedConfig" if row["outcome"] == "compile_error" else "RuntimeFailedConfig"
        entry.update(compile_time=compile_ms, verification_time=0.0, benchmark_time=cost_ms - compile_ms)
        cache[",".join(str(v) for _, v in entries)] = entry
    for name in names:
        if all(isinstance(v, int) for v in values[name]):
            values[name].sort()
    return {"device_name": notes.get("device", "unknown"), "kernel_name": notes.get("kernel", "kernel"),
            "problem_size": [1], "tune_params_keys": names, "tune_params": values, "objective": "time",
            "cache": cache}


def kt_cache(kind, path):
    """The space as a Kernel Tuner cache (dict): a public cache as published, less its InvalidConfig entries
    (outside the space: blocktune's reader leaves them out too)."""
    if kind == "csv":
        return csv_as_cache(path)
    with gzip.open(path, "rt") as f:
        cache = json.load(f)
    cache["cache"] = {k: v for k, v in cache["cache"].items() if v.get("time") != "InvalidConfig"}
    return cache


# ---------------------------------------------------------------------------------------------------------
# Running Kernel Tuner
# ---------------------------------------------------------------------------------------------------------

def strategy_options(strategy, max_fevals):
    """Kernel Tuner's defaults, but for the number of unique evaluations."""
    options = {"max_fevals": max_fevals}
    if strategy == "random_sample":
        options["fraction"] = 1.0  # max_fevals decides the sample size
    return options


def seed_latin_hypercube(np):
    """Kernel Tuner 1.5.0 draws Latin hypercube samples (Searchspace.get_LHS_sample, used by diff_evo; bayes_opt's
    initial sample) with scipy's LatinHypercube without a seed, so from fresh entropy: give it one drawn from numpy's
    seeded global state, so that those strategies repeat with the seed too."""
    import scipy.stats.qmc as qmc
    from kernel_tuner.strategies import bayes_opt
    if getattr(qmc.LatinHypercube, "seeded_by_kt_strategies", False):
        return

    class SeededLatinHypercube(qmc.LatinHypercube):
        seeded_by_kt_strategies = True

        def __init__(self, d, **kwargs):
            if kwargs.get("rng") is None and kwargs.get("seed") is None:
                kwargs["rng"] = int(np.random.randint(2**31 - 1))
            super().__init__(d, **kwargs)

    qmc.LatinHypercube = SeededLatinHypercube
    bayes_opt.LatinHypercube = SeededLatinHypercube


def run_strategy(space_id, kind, path, strategy, seeds, facts):
    import random
    import warnings
    import numpy as np
    import kernel_tuner
    from constraint import FunctionConstraint
    from kernel_tuner import util
    from kernel_tuner.runners.simulation import SimulationRunner

    warnings.filterwarnings("ignore", message="None of the tunable parameters specify thread block dimensions")
    seed_latin_hypercube(np)
    cache = kt_cache(kind, path)
    keys = cache["tune_params_keys"]
    members = {tuple(entry[k] for k in keys) for entry in cache["cache"].values()}

    def recorded(*values):  # the space: exactly the recorded configurations (failed ones included)
        return values in members

    max_fevals = max(MIN_FEVALS, FEVALS_FACTOR * facts["random_evaluations_in_budget"])
    max_fevals = min(max_fevals, len(members))
    options = strategy_options(PATCHED.get(strategy, strategy), max_fevals)

    def cost_s(config):  # what blocktune charges for it: compile, verification and benchmark time
        entry = cache["cache"][",".join(str(v) for v in config)]
        return sum(entry.get(k, 0) for k in ("compile_time", "verification_time", "benchmark_time")
                   if isinstance(entry.get(k, 0), (int, float))) / 1000

    # Per run (all calls of one seed): the configurations evaluated, in order, and their cost on blocktune's
    # clock. A call stops (Kernel Tuner's StopCriterionReached) once that cost has reached the budget (what comes
    # after cannot change the score), or once it has asked for GUARD_FACTOR x max_fevals configurations.
    state = {"asked": 0, "guard": False, "seen": set(), "configs": [], "spent": 0.0}
    original_run = SimulationRunner.run

    def guarded_run(self, parameter_space, tuning_options):
        parameter_space = list(parameter_space)
        state["asked"] += len(parameter_space)
        if state["asked"] > GUARD_FACTOR * max_fevals:
            state["guard"] = True
        if state["guard"] or state["spent"] >= facts["budget_s"]:
            tuning_options.budget.max_fevals = tuning_options.budget.num_fevals  # done: StopCriterionReached
        results = original_run(self, parameter_space, tuning_options)
        for result in results:
            if result is None or isinstance(result.get("__error__"), util.InvalidConfig):
                continue
            config = tuple(result[k] for k in keys)
            if config not in state["seen"]:
                state["seen"].add(config)
                state["configs"].append(dict(zip(keys, config)))
                state["spent"] += cost_s(config)
        return results

    problem_size = cache["problem_size"]  # as Kernel Tuner's tune_cache passes it
    problem_size = (problem_size,) if isinstance(problem_size, int) else tuple(problem_size)

    runs = []
    with tempfile.TemporaryDirectory(prefix="kt_space_") as tmp:
        cache_file = os.path.join(tmp, "cache.json")
        with open(cache_file, "w") as f:
            f.write(json.dumps(cache))  # json.dump encodes in Python: seconds for a GEMM cache
        SimulationRunner.run = guarded_run
        original_cost = util.get_result_cost
        if strategy in PATCHED:
            def failures_invalid(result, objectives, higher_is_better):
                if "__error__" in result:
                    return [1e20] * len(objectives)  # bayes_opt's invalid_value
                return original_cost(result, objectives, higher_is_better)
            util.get_result_cost = failures_invalid
        try:
            for seed in seeds:
                wall0, cpu0 = time.perf_counter(), time.process_time()
                state.update(seen=set(), configs=[], spent=0.0)
                calls, stops = 0, []
                # A run that ends before the budget is spent is restarted (seed + 1000 x restart), as a user
                # would with the rest of the budget; what it evaluated before answers from the cache (free).
                while state["spent"] < facts["budget_s"] and len(state["seen"]) < len(members) and calls < MAX_CALLS:
                    state.update(asked=0, guard=False)
                    before = len(state["seen"])
                    random.seed(seed + 1000 * calls)
                    np.random.seed(seed + 1000 * calls)
                    kernel_tuner.tune_kernel(
                        cache["kernel_name"], "", problem_size, [], cache["tune_params"],
                        restrictions=[FunctionConstraint(recorded)], cache=cache_file, simulation_mode=True,
                        strategy=PATCHED.get(strategy, strategy), strategy_options=dict(options), quiet=True,
                        verbose=False)
                    calls += 1
                    stops.append("budget" if state["spent"] >= facts["budget_s"] else
                                 "repeats guard" if state["guard"] else
                                 "max_fevals" if len(state["seen"]) - before >= max_fevals else "strategy ended")
                wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
                configs = state["configs"]
                runs.append({"name": f"{strategy} seed {seed}", "seed": seed, "wall_s": round(wall, 3),
                             "cpu_s": round(cpu, 3), "calls": calls, "stopped": stops,
                             "simulated_s": round(state["spent"], 3), "configs": configs})
                print(f"  {space_id} {strategy} seed {seed}: {len(configs)} configurations, {calls} call(s) "
                      f"({', '.join(stops)}), {wall:.1f} s", file=sys.stderr, flush=True)
        finally:
            SimulationRunner.run = original_run
            util.get_result_cost = original_cost
    return {"tool": "Kernel Tuner", "kernel_tuner_version": kernel_tuner.__version__, "space": space_id,
            "space_file": os.path.relpath(path, REPO) if kind == "csv" else os.path.basename(path),
            "strategy": strategy, "strategy_options": options, "budget_s": facts["budget_s"],
            "random_evaluations_in_budget": facts["random_evaluations_in_budget"], "runs": runs}


def write_gzip_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = json.dumps(data, separators=(",", ":")).encode()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as z:  # no name or time: reproducible
            z.write(raw)
    os.replace(tmp, path)


def task(args):
    space_id, kind, path, strategy, seeds, force = args
    out = sequence_file(space_id, strategy)
    if os.path.exists(out) and not force:
        return space_id, strategy, None
    facts = space_facts(kind, path)
    if strategy in PATCHED and facts["failed"] == 0:
        return space_id, strategy, "same as " + PATCHED[strategy]
    t0 = time.perf_counter()
    data = run_strategy(space_id, kind, path, strategy, seeds, facts)
    write_gzip_json(out, data)
    return space_id, strategy, time.perf_counter() - t0


def seeds_for(strategy, args):
    for item in args.seeds_for or []:
        name, _, count = item.partition("=")
        if name == strategy:
            return list(range(1, int(count) + 1))
    if args.seeds_for is None and strategy in DEFAULT_SEEDS_FOR:
        return list(range(1, DEFAULT_SEEDS_FOR[strategy] + 1))
    return list(range(1, args.seeds + 1))


def command_run(args):
    strategies = args.strategies.split(",") if args.strategies else STRATEGIES
    tasks = [(sid, kind, path, strategy, seeds_for(strategy, args), args.force)
             for sid, kind, path in select(spaces(), args.spaces) for strategy in strategies]
    tasks.sort(key=lambda t: not t[3].startswith("bayes_opt"))  # the slowest first, so that --jobs keeps every worker busy
    t0 = time.perf_counter()
    if args.jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(args.jobs) as pool:
            done = list(pool.imap_unordered(task, tasks, chunksize=1))
    else:
        done = [task(t) for t in tasks]
    for space_id, strategy, seconds in sorted(done):
        print(f"{space_id} {strategy}: " + ("cached" if seconds is None else seconds if isinstance(seconds, str)
                                            else f"{seconds:.1f} s"))
    print(f"kt_strategies: {len(tasks)} space x strategy pairs in {time.perf_counter() - t0:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run Kernel Tuner's strategies; write (or keep) their sequence files")
    run.add_argument("--strategies", help=f"comma-separated (default: {','.join(STRATEGIES)})")
    run.add_argument("--spaces", nargs="*", help="space ids or globs (default: all; see `list`)")
    run.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds 1..N per strategy")
    run.add_argument("--seeds-for", nargs="*", metavar="STRATEGY=N",
                     help="other seed counts for some strategies (default: "
                          + " ".join(f"{k}={v}" for k, v in DEFAULT_SEEDS_FOR.items()) + ")")
    run.add_argument("--jobs", type=int, default=1, help="space x strategy pairs run in parallel")
    run.add_argument("--force", action="store_true", help="rerun where a sequence file exists")
    run.add_argument("--python", help=f"a Python with kernel_tuner {KT_VERSION}")
    sub.add_parser("list", help="the spaces and their ids")
    args = ap.parse_args()
    if args.command == "list":
        for space_id, kind, path in spaces():
            print(f"{space_id}\t{path}")
        return
    reexec_under_kernel_tuner(args)
    command_run(args)


if __name__ == "__main__":
    main()
