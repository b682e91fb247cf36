#!/usr/bin/env python3
"""The tail term in the measured form, emulated on a model-residuals.csv with every stencil recording (see
../small-grids-not-kept/README.md for how to write one), the correction refitted: measured_tail.py CSV."""
import sys,numpy as np,pandas as pd
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../experiments')); import train_residual as tr
FIT=["spaces/stencil3d_r1-512x512x512-h200.csv.gz","spaces/stencil3d_r2-512x512x512-h200.csv.gz","spaces/stencil3d_r3-512x512x512-h200.csv.gz","spaces/stencil3d_r4-512x512x512-h200.csv.gz","spaces/stencil3d_r1-256x256x256-h200.csv.gz","spaces/stencil3d_r2-1024x1024x64-h200.csv.gz"]
df=pd.read_csv(sys.argv[1],sep='\t'); df=df[df.space.str.contains('stencil3d_')&~df.space.str.startswith('stencil3d_')&np.isfinite(df.measured_s)&(df.measured_s>0)].copy()
thr=(df.dram**6+df.l2**6+df.l1**6+df.shared**6+df.issue**6)**(1/6)
fill=np.exp(df.f9)
base=df.analytic_s-df['tail']
def variant(kind):
    if kind=='today': t=0.5*thr/np.maximum(fill,1)
    elif kind=='flat':  # idle share ~0.12 up to 4 waves, then today's
        t=np.where(fill<=4, 0.136*thr, 0.5*thr/fill)
    elif kind=='flatq':  # plus a partial-wave cost between 1 and 2 waves
        q=np.where((fill>1)&(fill<2),(np.ceil(fill)-fill)/fill*0.5,0)
        t=np.where(fill<=4, 0.136*thr, 0.5*thr/fill)+q*thr
    return base+t
df['steps']=df.config.str.extract(r'fused_steps=(\d+)')[0].astype(float).fillna(1).values
for kind in ('today','flat','flatq'):
    d2=df.copy(); d2['analytic_s']=variant(kind)
    d2['y']=np.log(d2.measured_s/d2.analytic_s); d2['y']-=d2.groupby('space').y.transform('mean')
    an=[tr.figures(d.analytic_s.values,d.measured_s.values) for _,d in d2.groupby('space')]
    model=tr.fit(d2[d2.space.isin(FIT)&(d2.steps==1)],{'fast_weight':4,'max_iter':400,'max_depth':4,'min_samples_leaf':200})
    d2['p']=d2.analytic_s*np.where(d2.steps==1,np.exp(model.predict(d2[tr.FEATURES].values)),1)
    res=[(sp,)+tuple(tr.figures(d.p.values,d.measured_s.values)) for sp,d in d2.groupby('space') if sp not in FIT]
    print(kind,'analytic: mean Sp %.3f top10 %d/%d'%(np.mean([a for a,_ in an]),sum(b<=1.03 for _,b in an),len(an)),
          '| corrected held out: mean Sp %.3f top10 %d/%d'%(np.mean([r[1] for r in res]),sum(r[2]<=1.03 for r in res),len(res)),
          'misses',[(r[0].split('/')[-1][:26],round(r[2],3)) for r in res if r[2]>1.03])
