"""Development (nothing of set 32): folds.py ROWS [VARIANT...]. Folds over every stencil recording (48 H200 + 12 H100): fit on H200 only vs on both devices."""
import sys, warnings, numpy as np, pandas as pd
warnings.filterwarnings("ignore")
from scipy.stats import spearmanr
from sklearn.ensemble import HistGradientBoostingRegressor
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3] / "experiments"))
from train_residual import load, EARLIER_FEATURES as FEATURES, FEATURES as BUILT
df = load(sys.argv.pop(1)); df = df[df.steps == 1].copy()  # ROWS: model-residuals.csv of test_model "[.residuals-stencil]"
c = df.config.str.extract(r"strategy=(\w+),zloop=(\w+),z_chunk=(\d+)"); df["zloop"], df["z_chunk"] = c[1], c[2].astype(int)
df["x_steps"] = np.log2(np.where(df.zloop != "NONE", df.z_chunk, 1))
df["x_dev"] = (df.device == "h200").astype(float)
V = {"h200-only": (FEATURES, ["h200"]), "both": (FEATURES, ["h200", "h100"]), "both+dev": (FEATURES + ["x_dev"], ["h200", "h100"]),
     "both+dev+steps": (FEATURES + ["x_dev", "x_steps"], ["h200", "h100"]), "built": (BUILT, ["h200", "h100"])}
def fit(tr, feats, fw=2):
    w = np.exp(-fw * tr.groupby("space").measured_s.rank(pct=True).values) / tr.groupby("space").space.transform("count").values
    return HistGradientBoostingRegressor(learning_rate=0.05, random_state=0, max_iter=400, max_depth=4, min_samples_leaf=200).fit(tr[feats].values, tr.y.values, sample_weight=w)
spaces = sorted(df.space.unique()); folds = [spaces[i::12] for i in range(12)]
for name in sys.argv[1:] or [v for v in V if v != "built"]:  # folds.txt: the four of this folder
    feats, devices = V[name]; out = []
    for g in folds:
        tr = df[~df.space.isin(g) & df.device.isin(devices)]
        m = fit(tr, feats)
        for sp in g:
            s = df[df.space == sp]; pred = s.analytic_s.values * np.exp(m.predict(s[feats].values))
            o = np.argsort(pred, kind="stable")
            out.append((sp, s.device.iloc[0], spearmanr(pred, s.measured_s).correlation, s.measured_s.values[o[:10]].min() / s.measured_s.min()))
    r = pd.DataFrame(out, columns=["space", "device", "rho", "top10"]); r.to_csv(f"folds-{name}.csv", index=False)
    for d in ["h200", "h100"]:
        sub = r[r.device == d]
        print(f"{name:15} {d} n={len(sub)} rho {sub.rho.mean():.3f} (min {sub.rho.min():.3f}) top10 mean {sub.top10.mean():.3f} within3% {int((sub.top10 <= 1.03).sum())}", flush=True)
    print("   h100:", " ".join(f"{s.split('-h100')[0].replace('stencil3d_','')}={t:.3f}" for s, t in zip(r[r.device=='h100'].space, r[r.device=='h100'].top10)), flush=True)
