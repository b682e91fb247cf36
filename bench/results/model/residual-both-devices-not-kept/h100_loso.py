"""Development: h100_loso.py ROWS. H100 leave-one-space-out: trees fitted on the other 11 H100 recordings only, vs
with the 48 H200 too, without and with the device feature (as folds.py: with two devices any feature that tells
them apart splits alike)."""
import sys, warnings, numpy as np, pandas as pd
warnings.filterwarnings("ignore")
from scipy.stats import spearmanr
from sklearn.ensemble import HistGradientBoostingRegressor
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3] / "experiments"))
from train_residual import load, EARLIER_FEATURES as FEATURES
df = load(sys.argv[1]); df = df[df.steps == 1].copy()  # ROWS: model-residuals.csv of test_model "[.residuals-stencil]"
def fit(tr, feats, fw=2, leaf=200):
    w = np.exp(-fw * tr.groupby("space").measured_s.rank(pct=True).values) / tr.groupby("space").space.transform("count").values
    return HistGradientBoostingRegressor(learning_rate=0.05, random_state=0, max_iter=400, max_depth=4, min_samples_leaf=leaf).fit(tr[feats].values, tr.y.values, sample_weight=w)
df["x_dev"] = (df.device == "h200").astype(float)
h100 = sorted(df[df.device == "h100"].space.unique())
for name, pool, feats in [("h100-only", df[df.device == "h100"], FEATURES), ("both", df, FEATURES), ("both+dev", df, FEATURES + ["x_dev"])]:
    out = []
    for sp in h100:
        m = fit(pool[pool.space != sp], feats)
        s = df[df.space == sp]; pred = s.analytic_s.values * np.exp(m.predict(s[feats].values)); o = np.argsort(pred, kind="stable")
        out.append((sp.split("-h100")[0].replace("stencil3d_", ""), spearmanr(pred, s.measured_s).correlation, s.measured_s.values[o[:10]].min() / s.measured_s.min()))
    r = pd.DataFrame(out, columns=["space", "rho", "top10"])
    print(f"{name:10} rho {r.rho.mean():.3f} (min {r.rho.min():.3f}) top10 mean {r.top10.mean():.3f} within3% {(r.top10 <= 1.03).sum()}  " + " ".join(f"{a}={t:.3f}" for a, t in zip(r.space, r.top10)), flush=True)
