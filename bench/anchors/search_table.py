#!/usr/bin/env python3
"""blocktune's search strategies against Kernel Tuner 1.5's on every recorded and public space, one table.

Both sides are scored by blocktune's methodology code (Willemsen et al., FGCS 2024; search/replay.cpp):
- blocktune's strategies by `blocktune replay run --json` (seeds 1..N), with the model's recorded predictions and
  once more with --no-model;
- Kernel Tuner's by `blocktune replay score --sequences`, on the sequences kt_strategies.py cached under
  bench/results/anchors-search/kt/ (Kernel Tuner itself is not run here).

Writes bench/results/anchors-search/: blocktune-model.json, blocktune-no-model.json (replay run's results),
kt-scores.json.gz (every Kernel Tuner run's score) and README.md (the table). One command, no Kernel Tuner needed:

    python3 bench/anchors/search_table.py [--seeds 10] [--keep-blocktune]

With --spaces (space ids, globs as in `kt_strategies.py list`) and --results DIR, the same on a subset of the
spaces, written to DIR instead (the sequences are still read from bench/results/anchors-search/kt/):

    python3 bench/anchors/search_table.py --spaces 'bench/stencil3d_*-h200*' --results bench/results/anchors-search/h200

With --predictions DIR, blocktune's strategies replay the copies of the recorded spaces in DIR, named by space id
(bench__<file> for a space of bench/results/spaces), in place of the recordings: copies that carry each launch's
resident warps, which recordings made before schema version 8 lack (`test_model "[.resident-warps]"` and
"[.resident-warps-anchors]"), with those carrying today's model's predictions where a recording stored an older
model's laid over them (`test_model "[.todays-predictions]"`). Spaces without a copy are replayed as recorded.
Times and costs are the recording's either way.
"""

import argparse
import collections
import csv
import datetime
import functools
import glob
import gzip
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kt_strategies as kt  # noqa: E402  (the spaces, their ids, the sequence files)

RESULTS = kt.RESULTS
BLOCKTUNE_STRATEGIES = ["random", "surrogate", "genetic", "bandit"]
SCORE_MATCH = 0.01  # "matches" the best Kernel Tuner strategy: at least its score minus this
SCORE_TARGET = 0.6
# The default's latest constants (42c0155: with the model's prior, fewer random candidates and more neighbours of the
# best; bench/results/search-calibration/exploit-with-prior/) were chosen on every space recorded before the sixth
# held-out set, so all of those count as developed (earlier constants were chosen on subsets of them:
# bench/results/search-calibration/README.md, "Which spaces developed what"). Held out: the sets recorded after that
# choice. The ninth set (an H200's) was recorded before the rule below for kernels that count no work, and read
# after it.
HELD_OUT_FOLDERS = ("h100-held-out-6", "h100-held-out-7", "h100-held-out-8", "h200-held-out-9", "h200-held-out-10",
                    "h100-held-out-11", "h100-held-out-12", "h100-held-out-13", "h200-held-out-14", "h100-held-out-15",
                    "h100-held-out-16", "h200-held-out-17", "h200-held-out-18", "h200-held-out-19", "h200-held-out-20",
                    "h200-held-out-21", "h200-held-out-22", "h200-held-out-23", "h200-held-out-24", "h200-held-out-warm-6",
                    "h200-held-out-25", "h200-held-out-26", "h200-held-out-27", "h200-held-out-28",
                    "h200-held-out-29", "h200-held-out-30", "h200-held-out-31", "h200-held-out-32", "h200-held-out-33",
                    "h200-held-out-34", "h200-held-out-35", "h200-held-out-36", "h200-held-out-37", "h200-held-out-38",
                    "h200-held-out-39", "h200-held-out-40", "h200-held-out-41", "h200-held-out-42",
                    "h200-held-out-warm-7")


# Recordings timed with the L2 flushed (tune's default since schema version 7): the default, its size correction and
# its rule for kernels that count no work were all developed on warm recordings, so these are held out from each.
FLUSHED_FOLDERS = ("h200-flushed-1", "h200-flushed-2", "h200-flushed-3", "h200-flushed-4", "h200-flushed-5",
                   "h200-flushed-6", "h200-flushed-7", "h200-flushed-8", "h200-flushed-stencil", "h200-flushed-pnpoly")


def held_out_from(set_number):
    """The held-out sets from the `set_number`th on (a folder's number ends its name), and the warm sets (*-warm-N, numbered
    as the flushed set whose sizes they share, recorded after every numbered set)."""
    return tuple(folder for folder in HELD_OUT_FOLDERS if "-warm-" in folder or int(folder.rsplit("-", 1)[1]) >= set_number)


# The default as `tune` runs it with other problem sizes in its database: the correction by another size was developed
# on every recording before the fourteenth set (bench/results/search-calibration/size-transfer/), and the search that
# follows a correction measured at another size on nearly every configuration (ModelScores::measured) on every
# recording read before the twenty-fourth session, the flushed development set h200-flushed-1 among them
# (bench/results/search-calibration/measured-prior/), and the choice of the other size by the model's distance
# (bbe64c1) on h200-flushed-1, h200-flushed-2 and the warm recordings up to the twenty-fourth set
# (bench/results/search-calibration/model-nearest-size/), and the averaging of the sizes the model sees alike on those
# and h200-flushed-3 (bench/results/search-calibration/sizes-averaged/), and the lead of a measured prior's favourite
# over the default configuration on those again (bench/results/search-calibration/measured-prior-leads/); these were
# not used for any of them (h200-flushed-4 judged the averaging, h200-flushed-5 the lead, h200-flushed-6 and
# h200-held-out-warm-6 were read after all of them, h200-held-out-25 to judge a model change that was not kept,
# h200-held-out-26 and -27 to judge the z walks' count of planes, h200-held-out-28, h200-flushed-7 and
# h200-held-out-warm-7 to judge a measured prior taking turns with the regression, not kept, h200-held-out-29 and -30
# to judge a refitted correction of the model, not kept, h200-held-out-31 to judge it again, kept, h200-held-out-32
# to judge a correction fitted on both devices, not kept, h200-held-out-33 to judge one with two more features, kept,
# h200-held-out-34 to judge it again, kept, h200-held-out-35 to judge deeper trees, kept, h200-held-out-36 to judge
# them again, undone, h200-held-out-37 to judge depth-8 trees with the last wave's idle share, kept, h200-held-out-38
# to judge them again, kept, h200-held-out-39 to judge them with the fast end weighed more, kept, h200-held-out-40 to
# judge them fitted again with the thirty-ninth set, kept, h200-held-out-41 and h200-flushed-8 to judge the surrogate
# learning each count of resident warps, kept, h200-held-out-42 to judge the correction fitted again with sets 40
# and 41, not kept): the numbered sets
# from the twenty-fifth on, the warm sets and every flushed set but the first three, each new set in by its number.
SIZE_CORRECTION_HELD_OUT_FOLDERS = held_out_from(25) + tuple(folder for folder in FLUSHED_FOLDERS
                                                             if folder not in ("h200-flushed-1", "h200-flushed-2", "h200-flushed-3"))
# For the kernels that count no work, the default's latest rule (their predictions are learned from but do not choose
# the first measurement; bench/results/search-calibration/model-without-work-counts/) was chosen on every recording of
# them before the eighth held-out set.
WITHOUT_WORK_KERNELS = ("pnpoly", "hotspot_small")
WITHOUT_WORK_HELD_OUT_FOLDERS = held_out_from(8) + FLUSHED_FOLDERS


@functools.cache
def first_recordings():
    """Per file name, the recording of that space outside bench/results/spaces/h100-repeats."""
    return {os.path.basename(p): p for _, kind, p in kt.spaces() if kind == "csv" and os.sep + "h100-repeats" + os.sep not in p}


def in_folders(path, folders):
    """Whether the file lies in one of `folders` (folder names under bench/results/spaces)."""
    return any(os.sep + folder + os.sep in path for folder in folders)


def developed_on(sid, path):
    """A repeat recording of a space (bench/results/spaces/h100-repeats) has the role of the space's first one."""
    if os.sep + "h100-repeats" + os.sep in path:
        path = first_recordings()[os.path.basename(path)]
    without_work = sid.partition("/")[2].split("-")[0] in WITHOUT_WORK_KERNELS
    folders = WITHOUT_WORK_HELD_OUT_FOLDERS if without_work else HELD_OUT_FOLDERS + FLUSHED_FOLDERS
    return not in_folders(path, folders)


def versus_best(score, best_score):
    """The default's score against the best Kernel Tuner score: "beats", "matches" (within SCORE_MATCH) or "below (-x)"."""
    if score < best_score - SCORE_MATCH:
        return f"below ({score - best_score:+.2f})"
    return "beats" if score > best_score + SCORE_MATCH else "matches"


def same_space(path):
    """Recordings of one space (kernel, problem, GPU kind, how the L2 was left) share this key: the file name, less a
    `-repeat2`, marked where the recording was timed with the L2 flushed."""
    name = os.path.basename(path).replace("-repeat2.csv.gz", ".csv.gz")
    return "flushed:" + name if in_folders(path, FLUSHED_FOLDERS) else name


def measured_times(path):
    """A recording's configurations, outcomes and measured times, as one hashable value."""
    with gzip.open(path, "rt") as f:
        return tuple((r["config"], r["outcome"], r["time_s"]) for r in csv.DictReader(l for l in f if not l.startswith("#")))


def repeated_spaces(spaces, rows):
    """The section on spaces measured more than once: per space, the default's score on each recording and their
    mean, against the Kernel Tuner strategy with the best mean over the same recordings. rows: per space id, the
    default's score and every Kernel Tuner strategy's."""
    groups = {}
    for sid, kind, path in spaces:
        if kind == "csv":
            groups.setdefault(same_space(path), []).append((sid, path))
    for key, members in groups.items():  # the same measurements under two names (the tests: and bench: stencil files)
        if len(members) > 1:
            distinct = {}
            for sid, path in members:
                distinct.setdefault(measured_times(path), (sid, path))
            groups[key] = list(distinct.values())
    lines = ["| space | role | recordings | default, per recording | default, mean | best Kernel Tuner strategy, mean | "
             "default vs best KT |", "|---|---|---|---|---|---|---|"]
    count = at_target = matched = 0
    for key, members in sorted(groups.items()):
        if len(members) < 2:
            continue
        count += 1
        defaults = [rows[sid]["default"] for sid, _ in members]
        strategies = set.intersection(*(set(k for k, v in rows[sid]["kt"].items() if v is not None) for sid, _ in members))
        means = {s: sum(rows[sid]["kt"][s] for sid, _ in members) / len(members) for s in strategies}
        best = max((v, s) for s, v in means.items()) if means else None
        mean = sum(defaults) / len(defaults) if None not in defaults else None
        at_target += mean is not None and mean >= SCORE_TARGET
        verdict = versus_best(mean, best[0]) if best and mean is not None else "–"
        matched += not verdict.startswith(("below", "–"))
        role = "developed" if developed_on(*members[0]) else "held out"
        lines.append(f"| {key[:-len('.csv.gz')]} | {role} | {len(members)} | " + " / ".join(fmt(d) for d in defaults)
                     + f" | {fmt(mean)} | " + (f"{best[1]} {best[0]:.2f}" if best else "–") + f" | {verdict} |")
    if count == 0:
        return "none here"
    return (f"**{count} spaces** were measured more than once (the H200 `-repeat2` twins, `bench/results/spaces/"
            f"h100-repeats/`, a held-out set's `repeat-N/`). Judged on the mean over their recordings, the default "
            f"scores >= {SCORE_TARGET} on **{at_target} of {count}** and matches or beats the Kernel Tuner strategy "
            f"with the best mean on **{matched} of {count}**.\n\n" + "\n".join(lines))


def seed_of(run):
    """A Kernel Tuner run's seed, from its name ("diff_evo seed 7")."""
    return int(run["name"].rsplit(" ", 1)[1])


def size_corrected(spaces, rows, no_model_by, uncorrected_by, corrected_by, default, with_consistent):
    """The default as `tune` runs it where its database holds other problem sizes of the kernel on the device: each
    recording's predictions corrected by the nearest other size among the table's recordings (`replay run
    --sizes-from`), against Kernel Tuner's best strategy and against `--no-model`; "as recorded" is the same
    replay without the correction, with the same predictions."""
    counts = {role: collections.Counter() for role in ("all", "held out")}
    below = []
    for sid, _, path in spaces:
        entry = corrected_by[sid]
        c = entry["strategies"][default]["score"] if entry["strategies"].get(default) else None
        plain = uncorrected_by[sid]["strategies"].get(default)
        d, kts = (plain["score"] if plain else None), rows[sid]["kt"]
        best = max((v for v in kts.values() if v is not None), default=None)
        nm_entry = no_model_by[sid]["strategies"].get(default)
        nm = nm_entry["score"] if nm_entry else None
        errors = {"as recorded": plain, "corrected": entry["strategies"].get(default)}
        held_out = in_folders(path, SIZE_CORRECTION_HELD_OUT_FOLDERS)
        for role in ("all", "held out") if held_out else ("all",):
            n = counts[role]
            n["spaces"] += 1
            n["corrected"] += entry["space"]["corrected_by"] is not None
            for name, score in (("as recorded", d), ("corrected", c)):
                if score is None:
                    continue
                n[name + " at target"] += score >= SCORE_TARGET
                n[name + " matched"] += best is not None and score >= best - SCORE_MATCH
                n[name + " compared"] += best is not None
                n[name + " below no-model"] += nm is not None and score < nm - 0.05
                # Beyond two standard errors of the difference (the seeds' noise, `replay run`'s score_standard_error).
                n[name + " surely below no-model"] += nm is not None and score < nm - 0.05 - 2 * math.hypot(
                    errors[name]["score_standard_error"], nm_entry["score_standard_error"])
        if entry["space"]["corrected_by"] is not None and c is not None and (c < SCORE_TARGET or (best is not None and c < best - SCORE_MATCH)):
            below.append(f"| {short_name(sid)} | {fmt(d)} | {fmt(c)} | {fmt(best)} | {fmt(nm)} |")
    lines = ["| spaces | count | corrected by another size | >= 0.6 as recorded / corrected | Kernel Tuner's best matched "
             "or beaten, as recorded / corrected | more than 0.05 below `--no-model`, as recorded / corrected (of them "
             "by more than two standard errors beyond) |",
             "|---|---|---|---|---|---|"]
    for role, n in counts.items():
        lines.append(f"| {role} | {n['spaces']} | {n['corrected']} | {n['as recorded at target']} / "
                     f"**{n['corrected at target']}** | {n['as recorded matched']} / **{n['corrected matched']}** (of "
                     f"{n['corrected compared']}) | {n['as recorded below no-model']} / {n['corrected below no-model']} "
                     f"({n['as recorded surely below no-model']} / {n['corrected surely below no-model']}) |")
    text = "\n".join(lines) + ("\n\nIn brackets, the spaces whose score is below `--no-model`'s - 0.05 by more than twice "
                               "the standard error of their difference (each mean's `score_standard_error` over the "
                               "seeds): those where the seeds alone are unlikely to have made the miss.")
    if with_consistent:
        text = (f"The predictions of {with_consistent} recording{'s' if with_consistent > 1 else ''} differ from what today's model computes with the "
                "parameters of the model tests by more than 5% somewhere (an older model's, or on the H100 the copy "
                "bandwidth of the recording run); for this section they are replaced by those, so that every "
                "ratio and every corrected prediction comes from one model (`--consistent-predictions`, copies "
                "written by `test_model \"[.todays-predictions-everywhere]\"`). \"As recorded\" below is the "
                "same replay without the correction.\n\n" + text)
    if below:
        text += ("\n\nCorrected and still below 0.6 or below Kernel Tuner's best:\n\n| space | as recorded | corrected | "
                 "best Kernel Tuner strategy | `--no-model` |\n|---|---|---|---|---|\n" + "\n".join(below))
    return text


def without_hindsight(kt_scores, rows):
    """The section on Kernel Tuner's best strategy chosen without hindsight. The best of ten strategies' means,
    chosen per space after the fact, gains from each mean's noise (the maximum of noisy means is biased upwards).
    Two choices that do not see the runs they are scored on: per space, the strategy with the best mean over the odd
    seeds scored by its even seeds and the other way round, averaged (cross-fitting); and the strategy with the best
    mean over every other space of the table (leave one space out: what a user without this space's results picks).
    rows: per space id, the default's score and every Kernel Tuner strategy's mean."""
    def half_mean(runs, parity):
        half = [r["score"] for r in runs if seed_of(r) % 2 == parity]
        return sum(half) / len(half) if half else None

    cross_fitted = {}
    for sid, strategies in kt_scores.items():
        if sid not in rows:
            continue
        halves = {s: (half_mean(v["runs"], 1), half_mean(v["runs"], 0)) for s, v in strategies.items()
                  if s in rows[sid]["kt"]}
        halves = {s: h for s, h in halves.items() if None not in h}
        if halves:
            by_odd = max(halves, key=lambda s: halves[s][0])
            by_even = max(halves, key=lambda s: halves[s][1])
            cross_fitted[sid] = (halves[by_odd][1] + halves[by_even][0]) / 2
    scored = [sid for sid in rows if rows[sid]["default"] is not None and sid in cross_fitted]
    totals = {}
    for sid in scored:
        for s, v in rows[sid]["kt"].items():
            if v is not None:
                totals.setdefault(s, {})[sid] = v
    complete = {s: v for s, v in totals.items() if len(v) == len(scored)}  # strategies with a score on every space
    matched_cross = matched_loo = 0
    loo_choices = {}
    for sid in scored:
        d = rows[sid]["default"]
        matched_cross += not versus_best(d, cross_fitted[sid]).startswith("below")
        if complete:
            choice = max(complete, key=lambda s: sum(v for k, v in complete[s].items() if k != sid))
            loo_choices[choice] = loo_choices.get(choice, 0) + 1
            matched_loo += not versus_best(d, complete[choice][sid]).startswith("below")
    n = len(scored)
    return (f"On the {n} spaces with the default's score and Kernel Tuner's runs, the default matches or beats "
            f"(>= the other's score − {SCORE_MATCH}) Kernel Tuner's best strategy **chosen on the odd seeds and scored "
            f"on the even ones** (and the other way round, averaged) on **{matched_cross} of {n}**, and the strategy "
            f"with the best mean on every other space (leave one space out; chosen: "
            + ", ".join(f"{s} {c} times" for s, c in sorted(loo_choices.items(), key=lambda x: -x[1]))
            + f") on **{matched_loo} of {n}**. The table's \"best Kernel Tuner strategy\" is chosen after the fact "
            f"on the runs it is scored by; these two are not.")


def rel(path):
    return os.path.relpath(path, kt.REPO)


def space_arguments(spaces):
    args = []
    for _, kind, path in spaces:
        args += ["--kernel-tuner-cache" if kind == "kt" else "--space", rel(path)]
    return args


def with_predictions_from(folder, spaces):
    """The spaces, each recorded one replaced by its copy in folder (named by its space id) where there is one."""
    if not folder:
        return spaces, 0
    out, replaced = [], 0
    for sid, kind, path in spaces:
        copy = os.path.join(folder, sid.replace("/", "__") + ".csv.gz")
        if kind != "kt" and os.path.exists(copy):
            path, replaced = copy, replaced + 1
        out.append((sid, kind, path))
    return out, replaced


def require_standard_errors(run_json, file):
    """The correction's section compares means by their standard errors, which `replay run` writes since f198dee."""
    for entry in run_json["spaces"]:
        for summary in entry["strategies"].values():
            if summary is not None and "score_standard_error" not in summary:
                sys.exit(f"search_table.py: {file} has no score_standard_error (written by an older blocktune); "
                         "run again without --keep-blocktune")
    return run_json


def blocktune_run(spaces, strategies, seeds, no_model, out, sizes_from=()):
    command = [os.path.abspath(kt.blocktune_binary()), "replay", "run"] + space_arguments(spaces) + [
        "--strategies", ",".join(strategies), "--seeds", str(seeds), "--json", out] + (["--no-model"] if no_model else [])
    for path in sizes_from:
        command += ["--sizes-from", rel(path)]
    t0, cpu0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=kt.REPO)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall_s": round(time.perf_counter() - t0, 1),
            "cpu_s": round(cpu.ru_utime + cpu.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1)}


def by_space(run_json, spaces):
    """replay run's JSON per space id (matched on the file each space was read from)."""
    ids = {os.path.realpath(path): sid for sid, _, path in spaces}
    return {ids[os.path.realpath(os.path.join(kt.REPO, entry["space"]["origin"]))]: entry
            for entry in run_json["spaces"]}


def score_kt(spaces):
    """Every cached Kernel Tuner sequence file scored by `blocktune replay score`: {space id: {strategy: ...}}."""
    scores = {}
    with tempfile.TemporaryDirectory(prefix="kt_scores_") as tmp:
        for sid, kind, path in spaces:
            for strategy in kt.STRATEGIES:
                sequences = kt.sequence_file(sid, strategy)
                if not os.path.exists(sequences):
                    continue
                out = os.path.join(tmp, "score.json")
                subprocess.run([kt.blocktune_binary(), "replay", "score",
                                "--kernel-tuner-cache" if kind == "kt" else "--space", rel(path),
                                "--sequences", rel(sequences), "--output", out], check=True, cwd=kt.REPO)
                with open(out) as f:
                    scored = json.load(f)
                with gzip.open(sequences, "rt") as f:
                    meta = json.load(f)
                runs = [{"name": r["name"], "score": r["score"], "evaluations": r["evaluations"],
                         "evaluations_in_budget": r["evaluations_in_budget"], "covers_budget": r["covers_budget"]}
                        for r in scored["runs"]]
                for run, kt_run in zip(runs, meta["runs"]):
                    run.update(calls=kt_run["calls"], wall_s=kt_run["wall_s"], cpu_s=kt_run["cpu_s"])
                scores.setdefault(sid, {})[strategy] = {
                    "mean_score": scored["mean_score"], "seeds": len(runs),
                    "kernel_tuner_version": meta["kernel_tuner_version"],
                    "strategy_options": meta["strategy_options"], "runs": runs}
    return scores


def fmt(score):
    return "–" if score is None else f"{score:.2f}"


def fmt_with_error(score, standard_error):
    return "–" if score is None else f"{score:.2f} ±{standard_error:.2f}"


def kt_standard_error(result):
    """The standard error of a Kernel Tuner strategy's mean score over its seeds (its runs' scores)."""
    scores = [r["score"] for r in result["runs"]]
    if len(scores) < 2:
        return 0.0
    mean = sum(scores) / len(scores)
    return math.sqrt(sum((x - mean) ** 2 for x in scores) / (len(scores) - 1) / len(scores))


def short_name(sid):
    prefix, _, name = sid.partition("/")
    name = name.replace("-h100-80gb-hbm3", "").replace("gemm_cltune-", "gemm ").replace("pnpoly-", "pnpoly ")
    return f"{prefix}: {name}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=kt.DEFAULT_SEEDS, help="seeds of blocktune's strategies")
    ap.add_argument("--keep-blocktune", action="store_true",
                    help="reuse blocktune-model.json and blocktune-no-model.json instead of running replay run")
    ap.add_argument("--keep-kt-scores", action="store_true",
                    help="reuse the results folder's kt-scores.json.gz instead of scoring every Kernel Tuner run again "
                         "(valid while the scoring code, the space files and the sequences are those it was made with)")
    ap.add_argument("--spaces", nargs="+", metavar="GLOB", help="only these space ids (default: every space)")
    ap.add_argument("--results", help="write the JSON files and README.md here (default: bench/results/anchors-search)")
    ap.add_argument("--predictions", metavar="DIR",
                    help="replay the copies of the spaces in DIR: each launch's resident warps, today's model's predictions (see above)")
    ap.add_argument("--consistent-predictions", metavar="DIR",
                    help="for the section on the correction by another size: the copies of the spaces in DIR, every "
                         "recording's predictions from one model (test_model \"[.todays-predictions-everywhere]\")")
    args = ap.parse_args()

    global RESULTS
    if args.results:
        RESULTS = os.path.abspath(args.results)
    every_space = kt.spaces()
    spaces = kt.select(every_space, args.spaces)
    replayed, from_copies = with_predictions_from(args.predictions, spaces)  # what blocktune's strategies replay
    if args.predictions and with_predictions_from(args.predictions, every_space)[1] == 0:  # of every space: --spaces may pick none
        sys.exit(f"search_table.py: no space copy in {args.predictions} (write them with test_model \"[.resident-warps]\")")
    os.makedirs(RESULTS, exist_ok=True)
    model_file = os.path.join(RESULTS, "blocktune-model.json")
    no_model_file = os.path.join(RESULTS, "blocktune-no-model.json")
    timing_file = os.path.join(RESULTS, "blocktune-wall.json")
    corrected_file = os.path.join(RESULTS, "blocktune-corrected.json")
    uncorrected_file = os.path.join(RESULTS, "blocktune-uncorrected.json")
    # The correction's section: ratios of measured to predicted times make sense only where the recording corrected
    # and the one correcting it were predicted by one model with one set of parameters, as `tune` recomputes them.
    consistent, with_consistent = with_predictions_from(args.consistent_predictions, spaces)
    if not args.consistent_predictions:
        consistent = replayed
    # As if one database held every recording (of all spaces, also where --spaces selects some).
    pool, pool_copies = with_predictions_from(args.consistent_predictions or args.predictions, every_space)
    if args.consistent_predictions and pool_copies == 0:
        sys.exit(f"search_table.py: no space copy in {args.consistent_predictions}")
    other_sizes = [path for _, kind, path in pool if kind != "kt"]

    # blocktune's default strategy, whatever it is now, is in both runs.
    if args.keep_blocktune:
        with open(timing_file) as f:
            wall = json.load(f)
    else:
        strategies = list(BLOCKTUNE_STRATEGIES)
        wall = {"model": blocktune_run(replayed, strategies, args.seeds, False, model_file)}
        with open(model_file) as f:
            default = json.load(f)["default_strategy"]
        if default not in strategies:
            strategies.insert(1, default)
            wall["model"] = blocktune_run(replayed, strategies, args.seeds, False, model_file)
        no_model_strategies = list(dict.fromkeys([default, "surrogate"]))
        wall["no_model"] = blocktune_run(replayed, no_model_strategies, args.seeds, True, no_model_file)
        with open(timing_file, "w") as f:
            json.dump(wall, f, indent=1)
    with open(model_file) as f:
        model = json.load(f)
    with open(no_model_file) as f:
        no_model = json.load(f)
    default = model["default_strategy"]
    strategies = list(model["spaces"][0]["strategies"])
    no_model_strategies = list(no_model["spaces"][0]["strategies"])
    args.seeds = model["seeds"]
    model_by, no_model_by = by_space(model, replayed), by_space(no_model, replayed)
    if not (args.keep_blocktune and os.path.exists(corrected_file) and os.path.exists(uncorrected_file)):
        wall["uncorrected"] = blocktune_run(consistent, [default], args.seeds, False, uncorrected_file)
        wall["corrected"] = blocktune_run(consistent, [default], args.seeds, False, corrected_file, other_sizes)
        with open(timing_file, "w") as f:
            json.dump(wall, f, indent=1)
    require_standard_errors(model, model_file)
    require_standard_errors(no_model, no_model_file)
    with open(corrected_file) as f:
        corrected_by = by_space(require_standard_errors(json.load(f), corrected_file), consistent)
    with open(uncorrected_file) as f:
        uncorrected_by = by_space(require_standard_errors(json.load(f), uncorrected_file), consistent)

    kt_file = os.path.join(RESULTS, "kt-scores.json.gz")
    if args.keep_kt_scores:
        with gzip.open(kt_file, "rt") as f:
            kt_scores = json.load(f)
        missing = [sid for sid, _, _ in spaces if sid not in kt_scores and
                   any(os.path.exists(kt.sequence_file(sid, s)) for s in kt.STRATEGIES)]
        if missing:
            sys.exit(f"search_table.py: {kt_file} has no scores for {len(missing)} spaces with Kernel Tuner sequences "
                     f"({', '.join(missing[:3])}...); run without --keep-kt-scores")
    else:
        kt_scores = score_kt(spaces)
        with gzip.open(kt_file, "wt") as f:  # about 10x smaller: the tree is near the device tool's limit
            json.dump(kt_scores, f, separators=(",", ":"))
    kt_strategies = [s for s in kt.STRATEGIES if any(s in v for v in kt_scores.values())]

    # ---- the table ----
    bt_columns = [(s, False) for s in strategies] + [(s, True) for s in no_model_strategies]
    header = (["space", "role", "configs", "budget (s) / random evals"] +
              [f"bt {s}" + (" (default)" if s == default else "") + (" --no-model" if nm else "")
               for s, nm in bt_columns] + [f"KT {s}" for s in kt_strategies] + ["best KT", "default vs best KT"])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    at_target = matched = compared = 0
    no_model_matched = no_model_at_target = 0
    headline = []
    roles = {role: {"spaces": 0, "at_target": 0, "matched": 0, "compared": 0} for role in ("held out", "developed")}
    misses = []
    scores_of = {}
    for sid, kind, path in spaces:
        facts = model_by[sid]["space"]
        role_name = "developed" if developed_on(sid, path) else "held out"
        role = roles[role_name]
        role["spaces"] += 1
        row = [short_name(sid), role_name, str(facts["configurations"]),
               f"{facts['budget_s']:.1f} / {facts['random_evaluations_in_budget']}"]
        bt = {}
        for s, nm in bt_columns:
            entry = (no_model_by if nm else model_by)[sid]["strategies"].get(s)
            bt[(s, nm)] = entry["score"] if entry else None
            row.append(fmt_with_error(entry["score"], entry["score_standard_error"]) if entry and s == default else fmt(bt[(s, nm)]))
        kts = {s: kt_scores.get(sid, {}).get(s, {}).get("mean_score") for s in kt_strategies}
        same = {s for s in kt_strategies if s in kt.PATCHED and kts[s] is None and facts["failed"] == 0}
        for s in same:  # a patch for failed configurations: the same search where nothing fails
            kts[s] = kts.get(kt.PATCHED[s])
        best = max((v, s) for s, v in kts.items() if v is not None and s not in same) \
            if any(v is not None for v in kts.values()) else None
        for s in kt_strategies:
            cell = "=" if s in same else fmt(kts[s])
            row.append(f"**{cell}**" if best and kts[s] == best[0] and s not in same else cell)
        d = bt[(default, False)]
        if d is not None and d >= SCORE_TARGET:
            at_target += 1
            role["at_target"] += 1
        d_no_model = bt.get((default, True))
        if d_no_model is not None:
            no_model_at_target += d_no_model >= SCORE_TARGET
            no_model_matched += bool(best) and d_no_model >= best[0] - SCORE_MATCH
        verdict = "–"
        if best and d is not None:
            compared += 1
            role["compared"] += 1
            verdict = versus_best(d, best[0])
            if not verdict.startswith("below"):
                matched += 1
                role["matched"] += 1
        best_error = kt_standard_error(kt_scores[sid][best[1]]) if best else None
        row += [f"{best[1]} {fmt_with_error(best[0], best_error)}" if best else "–", verdict]
        lines.append("| " + " | ".join(row) + " |")
        scores_of[sid] = {"default": d, "kt": {s: v for s, v in kts.items() if s not in same}}
        headline.append((sid, d, best))
        if d is None or d < SCORE_TARGET or verdict.startswith("below"):
            misses.append(f"| {short_name(sid)} | {row[1]} | " + ("–" if d is None else f"{d:.3f}") + " | "
                          + (f"{best[1]} {best[0]:.2f}" if best else "–") + f" | {verdict} |")
    status = ["| spaces | count | default >= " + f"{SCORE_TARGET} | matches or beats the best Kernel Tuner strategy |",
              "|---|---|---|---|",
              f"| all | {len(spaces)} | {at_target} | {matched} of {compared} |"]
    for name, r in roles.items():
        status.append(f"| {name} | {r['spaces']} | {r['at_target']} | {r['matched']} of {r['compared']} |")

    # ---- wall times ----
    kt_wall = {}
    for sid in kt_scores:
        for s, v in kt_scores[sid].items():
            w = kt_wall.setdefault(s, {"wall_s": 0.0, "cpu_s": 0.0, "runs": 0, "seeds": set(), "restarted": 0,
                                       "uncovered": 0})
            for r in v["runs"]:
                w["wall_s"] += r["wall_s"]
                w["cpu_s"] += r["cpu_s"]
                w["runs"] += 1
                w["restarted"] += r["calls"] > 1
                w["uncovered"] += not r["covers_budget"]
            w["seeds"].add(v["seeds"])
    kt_lines = ["| strategy | seeds | runs | CPU (s) | wall (s) | runs restarted | runs not reaching the budget |",
                "|---|---|---|---|---|---|---|"]
    for s in kt_strategies:
        w = kt_wall[s]
        kt_lines.append(f"| {s} | {'/'.join(str(x) for x in sorted(w['seeds']))} | {w['runs']} | {w['cpu_s']:.0f} | "
                        f"{w['wall_s']:.0f} | {w['restarted']} | {w['uncovered']} |")
    total_kt_cpu = sum(w["cpu_s"] for w in kt_wall.values())
    version = next((v["kernel_tuner_version"] for d in kt_scores.values() for v in d.values()), "?")
    options = {s: next(d[s]["strategy_options"] for d in kt_scores.values() if s in d) for s in kt_strategies}

    readme = TEMPLATE.format(
        date=datetime.date.today().isoformat(), default=default, seeds=args.seeds, version=version,
        predictions=(f"today's model's predictions and each launch's resident warps (`--predictions`: {from_copies} recordings "
                     "are replayed from copies written by `test_model \"[.resident-warps]\"`, with those of "
                     "`test_model \"[.todays-predictions]\"` laid over them where a recording stored an older model's "
                     "predictions)"
                     if from_copies else "the model's predictions stored in the recordings"),
        n_spaces=len(spaces), at_target=at_target, matched=matched, compared=compared, target=SCORE_TARGET,
        match=SCORE_MATCH, table="\n".join(lines), status="\n".join(status),
        repeated=repeated_spaces(spaces, scores_of), without_hindsight=without_hindsight(kt_scores, scores_of),
        corrected=size_corrected(spaces, scores_of, no_model_by, uncorrected_by, corrected_by, default, with_consistent),
        correction_held_out=", ".join(f"`{folder}`" for folder in SIZE_CORRECTION_HELD_OUT_FOLDERS),
        misses="\n".join(["| space | role | default | best Kernel Tuner strategy | default vs best KT |",
                          "|---|---|---|---|---|"] + misses) if misses else "none", kt_table="\n".join(kt_lines), kt_cpu=total_kt_cpu / 60,
        bt_wall=wall["model"]["wall_s"], bt_cpu=wall["model"]["cpu_s"] / 60,
        bt_wall_no_model=wall["no_model"]["wall_s"], bt_cpu_no_model=wall["no_model"]["cpu_s"] / 60,
        no_model_at_target=no_model_at_target, no_model_matched=no_model_matched, strategies=",".join(strategies),
        no_model_strategies=",".join(no_model_strategies), kt_strategies=",".join(kt_strategies),
        options="; ".join(f"{s}: `{json.dumps({k: v for k, v in o.items() if k != 'max_fevals'})}`"
                          for s, o in options.items() if len(o) > 1) or "none",
        fevals_factor=kt.FEVALS_FACTOR, min_fevals=kt.MIN_FEVALS, guard=kt.GUARD_FACTOR, max_calls=kt.MAX_CALLS)
    with open(os.path.join(RESULTS, "README.md"), "w") as f:
        f.write(readme)
    print(f"default {default}: >= {SCORE_TARGET} on {at_target}/{len(spaces)} spaces; matches or beats the best "
          f"Kernel Tuner strategy on {matched}/{compared}")
    for name, r in roles.items():
        print(f"  {name}: >= {SCORE_TARGET} on {r['at_target']}/{r['spaces']}; matches or beats on "
              f"{r['matched']}/{r['compared']}")
    for sid, d, best in headline:
        print(f"  {sid}: {default} {fmt(d)}; best KT " + (f"{best[1]} {best[0]:.2f}" if best else "–"))
    print(f"wrote {rel(os.path.join(RESULTS, 'README.md'))}")


TEMPLATE = """# blocktune's search strategies against Kernel Tuner 1.5's

Generated by `bench/anchors/search_table.py` ({date}). Every recorded and public space ({n_spaces}), blocktune's
strategies and Kernel Tuner {version}'s, all scored by the same code: blocktune's implementation of the
methodology of Willemsen, van Werkhoven and van Nieuwpoort (FGCS 2024) in `search/replay.cpp`.

**Headline.** The default strategy (`{default}`, with {predictions} where the space has them, as
`tune` uses them; where the spec counts no work (pnpoly, hotspot) they rank occupancy, waves and launch overhead
only, the recording says so, and the search does not start from their favourite)
scores >= {target} on {at_target} of {n_spaces} spaces, and matches (>= best Kernel Tuner score − {match}) or beats
the best Kernel Tuner strategy of each space on {matched} of {compared}. The same strategy with `--no-model`:
>= {target} on {no_model_at_target}, matches or beats the best Kernel Tuner strategy on {no_model_matched}.

## Status

Both sides are current: the blocktune columns are the default of the binary that ran (`{default}` with the online
calibration of the model, trend features and covering measurements: `bench/results/search-calibration/`), and
every Kernel Tuner sequence was run on the space file it is scored on (the `tests:` stencil sequences were rerun
on today's recordings, 2026-11-25). The issue's targets are >= {target} on every space and at least matching the best
Kernel Tuner strategy on 75% of them.

{status}

**Developed on / held out.** The default's latest constants (with the model's prior, fewer random candidates and
more neighbours of the best: `bench/results/search-calibration/exploit-with-prior/`) were chosen on every space
recorded before the sixth held-out set, so all of those are "developed" here (earlier constants were chosen on
subsets of them: `bench/results/search-calibration/README.md`, "Which spaces developed what"). Held out are the
spaces recorded after that choice: the sixth to eighth held-out sets (`bench/results/spaces/h100-held-out-6` to
`-8`), except for the kernels that count no work (pnpoly, hotspot), whose latest rule (their predictions do not choose
the first measurement: `bench/results/search-calibration/model-without-work-counts/`) was chosen on every recording
of them before the eighth set, which alone is held out for them. A caveat: the `tests:` and `bench:` H100 stencil rows are the same six recordings (same configurations,
times and costs, so Kernel Tuner's sequences are identical; the `tests:` files carry today's model's predictions,
the `bench:` files those the tuner stored at recording time), so they are not independent spaces.

Where the default misses a target (below {target}, or below the best Kernel Tuner strategy − {match}):

{misses}

Earlier tables: commit 4282bc3 (the default of be4dfe1, before the calibration, trends and covering measurements)
had >= 0.6 on 22 of 25 and matched or beat the best Kernel Tuner strategy on 21 of 25; the one committed up to 38b738a (25
spaces; the H200 spaces were then in sections of their own) 22 of 25 and 23 of 25.

## Spaces measured more than once

One recording's times carry its measurement noise, and on a flat space (many configurations within a few percent of
the optimum) the score of one search moves with it: which configuration is the recorded optimum, and how soon
random search is expected to come near it. The same strategy on two recordings of one space can differ by more than
the issue's margins (`bench/results/spaces/h100-repeats/README.md`).

{repeated}

## Kernel Tuner's best strategy, chosen without hindsight

{without_hindsight}

## The default as `tune` runs it with other problem sizes in its database

Where `tune`'s database holds another problem size of the kernel measured on the same device, it corrects the
model's predictions by it (`bench/results/search-calibration/size-transfer/`). The columns above replay each
recording with its own predictions only, as a database holding nothing else would. Here the same default replays
every recording as if one database held all the others (`replay run --sizes-from` every recorded space, also
where a table shows some; of the nearest other sizes of the same kernel and GPU, the one the model sees most alike
corrects it, as `tune` does; Kernel Tuner caches and recordings without another size are as above). Held out here:
the sets used neither for the search that follows a correction measured at another size on nearly every
configuration (`bench/results/search-calibration/measured-prior/`) nor for the choice of that size by the model's
distance (`bench/results/search-calibration/model-nearest-size/`): {correction_held_out}.

{corrected}

## Method

- **Score.** Best-so-far over *simulated* time: every configuration is charged its recorded cost (compile,
  verification and benchmark time; for Kernel Tuner caches `compile_time + verification_time + benchmark_time`),
  standardised against the exact expected curve of random search, P(t) = (f_random(t) − f(t)) / (f_random(t) −
  f_opt), averaged over 100 times up to the budget: when random search is expected to have come 95% of the way
  from the median to the optimum (`RandomBaseline::budget_seconds`). 0 is random search, 1 the optimum at once.
- **Equal budgets.** Both tools get the same simulated-time budget and the same cost accounting, on the same
  space: blocktune's strategies run under `Budget{{.seconds = budget}}` in `replay run`; Kernel Tuner's runs are
  replayed by `replay score`, which charges each configuration of the sequence its recorded cost once (a repeat,
  answered by Kernel Tuner's cache, costs nothing) and scores the same way, so what a run evaluates after the
  budget does not count. Strategy overhead (the optimiser's own CPU time) is counted by neither.
- **Kernel Tuner's runs** (`bench/anchors/kt_strategies.py`): simulation mode (`simulation_mode=True` on a cache
  file), one run per seed (`random.seed` and `numpy.random.seed`; `PYTHONHASHSEED=0`). A recorded-space CSV becomes
  a temporary Kernel Tuner cache: `tune_params` from the configurations' values (integers ascending, strings in
  order of first appearance), `time` in ms or `CompilationFailedConfig`/`RuntimeFailedConfig`, `compile_time`
  and `benchmark_time` (the rest of `cost_s`) in ms. A public cache is used as published, less its
  `InvalidConfig` entries. The restriction is one Python callable accepting exactly the recorded configurations
  (failed ones included, as in blocktune's replay): our spaces are not full products, and GEMM's is restricted.
  Strategy options: Kernel Tuner's defaults except `max_fevals` = {fevals_factor} x the number of evaluations random search
  affords within the budget (`random_evaluations_in_budget` of `blocktune replay score --space S`; at least
  {min_fevals}, at most the space); other options: {options}. **Kernel Tuner's own simulated-time limit
  (`time_limit`) is not used** (in simulation mode it adds the real time spent in Python to the simulated time);
  the budget is applied by the scoring, on blocktune's clock. A run whose strategy ends before the budget is spent
  (dual annealing stops after `maxfun = max_fevals` calls of its cost function, invalid and repeated points
  included; the genetic algorithm after 90 generations) is restarted with seed + 1000 x restart, and what it had
  evaluated answers from the cache at no cost, as a user would spend the rest of the budget; a call that asks for
  {guard} x max_fevals configurations (repeats included) is stopped, and a run makes at most {max_calls} calls. The
  sequence scored is the run's unique configurations in the order of Kernel Tuner's results.
- **blocktune's runs**: `replay run` with seeds 1..{seeds}; the model-using strategies get {predictions}
  (`predicted_s`) where the space has them. Kernel Tuner caches carry no predictions and no
  occupancy, so there `{default}` and `{default} --no-model` are the same search.

## Table

Mean methodology score over the seeds (`±`: its standard error over the seeds, for the default and the best Kernel
Tuner strategy); the best Kernel Tuner strategy of each space in bold; `=`: the same
search as the column it patches (no configuration of the space fails). `bt` = blocktune,
`KT` = Kernel Tuner {version}. Spaces: `public:` the published Kernel Tuner caches in `shared/spaces/public`
(GEMM and pnpoly on four GPUs, not in this repository), `tests:` `tests/data/spaces` (today's stencil at
radius 1-5 and the four example kernels, H100, with today's model's predictions), `bench:` `bench/results/spaces`
(the same six stencil recordings with the predictions stored at recording time, and pnpoly on an H200). Role:
whether the default strategy was developed on the space (section "Status"). Budget: the methodology's time budget and how
many configurations random search measures in it.

{table}

Reading it:
- The score is a mean of P(t) = (f_random(t) − f(t)) / (f_random(t) − f_opt) over the budget; it is unbounded
  below. Where random search gets close to the optimum fast (many near-optimal configurations, as in pnpoly), a
  search that stays a few percent slower than the optimum for a while scores far below 0.
- `bayes_opt` is Kernel Tuner 1.5.0 as released. On spaces where configurations fail (the pnpoly caches: 318-358
  of 4,092 fail at run time) it breaks: Kernel Tuner's cost function returns `sys.float_info.max` for a failed
  configuration, bayes_opt treats only its own `1e20` as invalid, so its Gaussian process learns from 1.8e308,
  predicts NaN, and the search degenerates. `bayes_opt_patched` is the same strategy with failures costed `1e20`
  (as bayes_opt intends); it is the stronger anchor there, and the comparison takes the best column either way.
  Kernel Tuner's own `tune_cache` hides this by leaving failed configurations out of the space, which a real
  tuning run cannot do; here they are part of the space for both tools.
- `bayes_opt` is not reproducible run to run: its default method (`multi-ultrafast`) decides how many candidates
  to evaluate per model update from measured wall times (its sequence files for the 8 public spaces and the four
  example kernels of `tests/` were also written before the script seeded its Latin hypercube sample: rerun, they
  differ; the twelve stencil files and pnpoly on the H200 were written after, and the `tests:` stencil rerun
  reproduced the `bench:` sequences exactly, bayes_opt's included). Everything else repeats
  exactly with its seed (the script seeds scipy's Latin hypercube sampler, which Kernel Tuner 1.5.0 leaves
  unseeded).
- Left out: Kernel Tuner's other strategies (`basinhopping`, `minimize`, `mls`, `greedy_mls`,
  `ordered_greedy_mls`, the pymoo, pyATF and skopt wrappers, the hybrid `gen_*` ones, `brute_force`): not among the
  five the issue names, and most are local searches the included ones cover (greedy ILS, simulated annealing)
  or need extra packages.

## Commands and wall times

```sh
BLOCKTUNE_BUILD_DIR=build bash scripts/build.sh
python3 bench/anchors/kt_strategies.py run --jobs 2   # Kernel Tuner: installs it if missing; cached sequences are kept
python3 bench/anchors/search_table.py --seeds {seeds}          # blocktune's side, the scores, this file
```

Both scripts run `$BLOCKTUNE` where it is set, else `build/cli/blocktune`.

`search_table.py` runs:

```sh
build/cli/blocktune replay run --space ... --kernel-tuner-cache ... --strategies {strategies} --seeds {seeds} --json blocktune-model.json
build/cli/blocktune replay run --space ... --kernel-tuner-cache ... --strategies {no_model_strategies} --seeds {seeds} --no-model --json blocktune-no-model.json
build/cli/blocktune replay score --space S (or --kernel-tuner-cache S) --sequences kt/<space>/<strategy>.json.gz --output ...
```

blocktune (`replay run`, one thread; it also replays each seed twice more for its near-optimality columns):
{bt_cpu:.1f} CPU minutes ({bt_wall:.0f} s wall) with the model, {bt_cpu_no_model:.1f} CPU minutes ({bt_wall_no_model:.0f} s wall) for
the `--no-model` run, on a shared 2-core machine.

Kernel Tuner {version} ({kt_strategies}), {kt_cpu:.0f} CPU minutes in all. Seeds 1..10, but 1..3 for
`bayes_opt` and `bayes_opt_patched` (a GEMM run of bayes_opt takes 2-5 CPU minutes: its Gaussian process grows to
about a thousand observations). Wall seconds are sums over the runs, measured on a shared 2-core machine under
load (load average up to 25 during the first bayes_opt runs); `kt_strategies.py run --jobs 2` ran them two at a
time. The `tests:` stencil sequences were rerun on today's recordings (after `git rm -r kt/tests/stencil3d_*`)
and pnpoly on the H200 added, with

```sh
python3 bench/anchors/kt_strategies.py run --spaces 'tests/stencil3d_*' --seeds 10 --seeds-for bayes_opt=3 bayes_opt_patched=3 --jobs 2
python3 bench/anchors/kt_strategies.py run --spaces 'bench/pnpoly-*' --seeds 10 --seeds-for bayes_opt=3 bayes_opt_patched=3 --jobs 2
```

(8 min 51 s wall and 10.2 CPU minutes for the six stencil spaces, 60 space x strategy pairs, load average 2-4;
7 s wall for pnpoly on the H200; Kernel Tuner 1.5.0 freshly pip-installed by the script with numpy 2.4.6 and
scipy 1.17.1). The table below sums every sequence file's runs, old and new.

{kt_table}

Files: `kt/<space>/<strategy>.json.gz` (Kernel Tuner's sequences: per run its seed, wall and CPU seconds, calls,
why each call stopped, and the configurations in order), `kt-scores.json.gz` (their scores per run),
`blocktune-model.json` and `blocktune-no-model.json` (`replay run --json`), `blocktune-wall.json`.
"""

if __name__ == "__main__":
    main()
