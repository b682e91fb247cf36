#!/usr/bin/env python3
"""The correction refitted with the tail term's share of the throughput-bound time as one more feature (f12; give
f12 as an argument, none for today's features), at two leaf sizes: refit_tail.py MODEL-RESIDUALS.CSV [f12]."""
import os,sys,numpy as np,pandas as pd
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../experiments')); import train_residual as tr
FIT=["spaces/stencil3d_r1-512x512x512-h200.csv.gz","spaces/stencil3d_r2-512x512x512-h200.csv.gz","spaces/stencil3d_r3-512x512x512-h200.csv.gz","spaces/stencil3d_r4-512x512x512-h200.csv.gz","spaces/stencil3d_r1-256x256x256-h200.csv.gz","spaces/stencil3d_r2-1024x1024x64-h200.csv.gz"]
df=pd.read_csv(sys.argv[1],sep='\t'); df=df[df.space.str.contains('stencil3d_')&~df.space.str.startswith('stencil3d_')&np.isfinite(df.measured_s)&(df.measured_s>0)].copy()
thr=(df.dram**6+df.l2**6+df.l1**6+df.shared**6+df.issue**6)**(1/6)
df['f12']=np.log(df['tail']/thr+1e-6)
extra=sys.argv[2:] 
feats=tr.FEATURES+extra
df['steps']=df.config.str.extract(r'fused_steps=(\d+)')[0].astype(float).fillna(1).values
df['y']=np.log(df.measured_s/df.analytic_s); df['y']-=df.groupby('space').y.transform('mean')
tr.FEATURES=feats
for params in ({'fast_weight':4,'max_iter':400,'max_depth':4,'min_samples_leaf':200},{'fast_weight':4,'max_iter':400,'max_depth':4,'min_samples_leaf':50}):
    model=tr.fit(df[df.space.isin(FIT)&(df.steps==1)],params)
    corr=np.where(df.steps==1,np.exp(model.predict(df[feats].values)),1.0); df['p']=df.analytic_s*corr
    res=[(sp,)+tuple(tr.figures(d.p.values,d.measured_s.values)) for sp,d in df.groupby('space') if sp not in FIT]
    print(extra,params['min_samples_leaf'],'held out: mean Spearman %.3f; top10<=1.03 %d of %d; worst %.3f'%(np.mean([r[1] for r in res]),sum(r[2]<=1.03 for r in res),len(res),max(r[2] for r in res)))
    print('   misses:',[(r[0].split('/')[-1][:28],round(r[2],3)) for r in res if r[2]>1.03])
