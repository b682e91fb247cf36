#!/usr/bin/env python3
"""A z loop's start-up as extra steps of its latency term (2, R or 2R more per block for zloop=REG), emulated on a
model-residuals.csv with every stencil recording, the correction refitted: prologue_steps.py CSV."""
import sys,re,numpy as np,pandas as pd
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../experiments')); import train_residual as tr
FIT=["spaces/stencil3d_r1-512x512x512-h200.csv.gz","spaces/stencil3d_r2-512x512x512-h200.csv.gz","spaces/stencil3d_r3-512x512x512-h200.csv.gz","spaces/stencil3d_r4-512x512x512-h200.csv.gz","spaces/stencil3d_r1-256x256x256-h200.csv.gz","spaces/stencil3d_r2-1024x1024x64-h200.csv.gz"]
df=pd.read_csv(sys.argv[1],sep='\t'); df=df[df.space.str.contains('stencil3d_')&~df.space.str.startswith('stencil3d_')&np.isfinite(df.measured_s)&(df.measured_s>0)].copy()
zc=df.config.str.extract(r'z_chunk=(\d+)')[0].astype(float)
zl=df.config.str.extract(r'zloop=(\w+)')[0]
r=df.space.str.extract(r'stencil3d_r(\d)')[0].astype(float)
df['steps']=df.config.str.extract(r'fused_steps=(\d+)')[0].astype(float).fillna(1).values
reg=(zl=='REG')
for label,extra in (('today',0*r),('+2 steps',2+0*r),('+R steps',r),('+2R steps',2*r)):
    d2=df.copy()
    factor=np.where(reg,(zc+extra)/zc,1.0)
    d2['analytic_s']=df.analytic_s+df.latency*(factor-1)
    d2['y']=np.log(d2.measured_s/d2.analytic_s); d2['y']-=d2.groupby('space').y.transform('mean')
    an=[tr.figures(d.analytic_s.values,d.measured_s.values) for _,d in d2.groupby('space')]
    model=tr.fit(d2[d2.space.isin(FIT)&(d2.steps==1)],{'fast_weight':4,'max_iter':400,'max_depth':4,'min_samples_leaf':200})
    d2['p']=d2.analytic_s*np.where(d2.steps==1,np.exp(model.predict(d2[tr.FEATURES].values)),1)
    res=[(sp,)+tuple(tr.figures(d.p.values,d.measured_s.values)) for sp,d in d2.groupby('space') if sp not in FIT]
    print(label,'analytic: Sp %.3f top10 %d/%d'%(np.mean([a for a,_ in an]),sum(b<=1.03 for _,b in an),len(an)),
          '| corrected held out: Sp %.3f top10 %d/%d'%(np.mean([x[1] for x in res]),sum(x[2]<=1.03 for x in res),len(res)),
          'misses',[(x[0].split('/')[-1][:26],round(x[2],3)) for x in res if x[2]>1.03])
