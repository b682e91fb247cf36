"""Development (nothing of set 32): steps_feature.py ROWS [VARIANT...]. Extra residual features, computed here from the
configuration (the walk's planes: z_chunk where the coding walks z), out of fold (6 folds) on the 48 H200 recordings."""
import sys, numpy as np, pandas as pd
from scipy.stats import spearmanr
from sklearn.ensemble import HistGradientBoostingRegressor
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3] / "experiments"))
from train_residual import load, EARLIER_FEATURES as FEATURES

df = load(sys.argv.pop(1))  # ROWS: model-residuals.csv of test_model "[.residuals-stencil]"
df = df[(df.device == "h200") & (df.steps == 1)].copy()
cfg = df.config.str.extract(r"strategy=(\w+),zloop=(\w+),z_chunk=(\d+)")
df["strategy"], df["zloop"], df["z_chunk"] = cfg[0], cfg[1], cfg[2].astype(int)
df["nz"] = df.space.str.extract(r"x(\d+)-h200")[0].astype(int)
thr = (df[["dram", "l2", "l1", "shared", "issue"]] ** 6).sum(axis=1) ** (1 / 6)
df["x_tail"] = np.log(df["tail"] / thr + 1e-6)
walk = df.zloop != "NONE"
df["x_steps"] = np.log2(np.where(walk, df.z_chunk, 1))
df["x_walks"] = np.log2(np.where(walk, np.ceil(df.nz / df.z_chunk), df.nz))  # blocks along z per column
VARIANTS = {"base": FEATURES, "steps": FEATURES + ["x_steps"], "steps+tail": FEATURES + ["x_steps", "x_tail"],
            "steps+walks": FEATURES + ["x_steps", "x_walks"]}
which = sys.argv[1:] or list(VARIANTS)
spaces = sorted(df.space.unique()); folds = [spaces[i::6] for i in range(6)]
def fit(tr, feats, fw=2):
    w = np.exp(-fw * tr.groupby("space").measured_s.rank(pct=True).values) / tr.groupby("space").space.transform("count").values
    return HistGradientBoostingRegressor(learning_rate=0.05, random_state=0, max_iter=400, max_depth=4, min_samples_leaf=200).fit(tr[feats].values, tr.y.values, sample_weight=w)
def pairs(s, col):
    r = s[s.strategy == "RING"]
    a = r[r.z_chunk == 8].set_index(r[r.z_chunk == 8].config.str.replace("z_chunk=8,", "z_chunk=X,"))
    b = r[r.z_chunk == 32].set_index(r[r.z_chunk == 32].config.str.replace("z_chunk=32,", "z_chunk=X,"))
    j = a[[col]].merge(b[[col]], left_index=True, right_index=True, suffixes=("", "_b"))
    return float(np.median(j[col] / j[col + "_b"])) if len(j) else np.nan
for name in which:
    feats = VARIANTS[name]; out = []
    for g in folds:
        m = fit(df[~df.space.isin(g)], feats)
        for sp in g:
            s = df[df.space == sp].copy(); s["pred"] = s.analytic_s * np.exp(m.predict(s[feats].values))
            o = np.argsort(s.pred.values, kind="stable")
            out.append((sp, s.nz.iloc[0], spearmanr(s.pred, s.measured_s).correlation, s.measured_s.values[o[:10]].min() / s.measured_s.min(),
                        pairs(s, "measured_s"), pairs(s, "pred")))
    r = pd.DataFrame(out, columns=["space", "nz", "rho", "top10", "ring_meas", "ring_pred"])
    r.to_csv(f"oof-{name}.csv", index=False)
    for lab, sub in [("all", r), ("thin<=64", r[r.nz <= 64]), ("deep", r[r.nz > 64])]:
        print(f"{name:12} {lab:9} n={len(sub):2} rho {sub.rho.mean():.3f} top10 mean {sub.top10.mean():.3f} within3% {int((sub.top10 <= 1.03).sum())} "
              f"ring z8/z32 meas {sub.ring_meas.mean():.3f} pred {sub.ring_pred.mean():.3f}", flush=True)
