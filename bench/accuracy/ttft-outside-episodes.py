#!/usr/bin/env python3
# Usage: ttft-outside-episodes.py 'RUN_DIR/*/requests.jsonl' EPISODES_FILE [MARGIN_MS=20] [SLOW_TTFT_MS]
# EPISODES_FILE: output of bench/accuracy/vcpu-speed run alongside the perf run (bench/README.md, "Latency tail").
# With SLOW_TTFT_MS: the phases of the requests outside the episodes slower than that.
import json,sys,glob
# TTFT percentiles of all requests and of those whose [scheduled, first token] does not overlap a vCPU slow episode
# (extended by MARGIN ms after its end for the backlog to drain).
f=glob.glob(sys.argv[1])[0]; eps=[]; margin=float(sys.argv[3]) if len(sys.argv)>3 else 20
for l in open(sys.argv[2]):
    if l.startswith('episode'):
        x=l.split(); eps.append((float(x[2]),float(x[2])+float(x[6])/1000+margin/1000))
rows=[json.loads(l) for l in open(f)]
def pct(v,q): v=sorted(v); return v[min(len(v)-1,int(q*len(v)))]*1e3 if v else float('nan')
allt=[];clean=[]
for r in rows:
    if r['ttft_s'] is None: continue
    s=r['start_epoch_ms']/1000-(r['start_s']-r['scheduled_s']); e=s+(r['first_token_s']-r['scheduled_s'])
    allt.append(r['ttft_s'])
    if not any(a<=e and s<=b for a,b in eps): clean.append(r['ttft_s'])
span=(max(r['start_epoch_ms'] for r in rows)-min(r['start_epoch_ms'] for r in rows))/1000
t0=min(r['start_epoch_ms'] for r in rows)/1000
inrun=[(a,b) for a,b in eps if t0<=a<=t0+span]
print("episodes in run %d, %.1f%% of run time (with %g ms margin)"%(len(inrun),100*sum(b-a for a,b in inrun)/span,margin))
for name,v in (("all",allt),("outside episodes",clean)):
    print("%-17s n=%5d TTFT p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms"%(name,len(v),pct(v,.5),pct(v,.9),pct(v,.99),pct(v,.999),max(v)*1e3))
if len(sys.argv)>4:
    thr=float(sys.argv[4])/1000
    import collections
    agg=collections.defaultdict(list)
    for r in rows:
        if r['ttft_s'] is None or r['ttft_s']<thr: continue
        s=r['start_epoch_ms']/1000-(r['start_s']-r['scheduled_s']); e=s+(r['first_token_s']-r['scheduled_s'])
        if any(a<=e and s<=b for a,b in eps): continue
        p=r['phases_ms']
        agg['start-sched'].append((r['start_s']-r['scheduled_s'])*1e3)
        for k in ('queue','write','server_wait','first_token'): agg[k].append(p[k])
        agg['ttft'].append(r['ttft_s']*1e3)
    for k,v in agg.items(): v.sort(); print("slow clean (ttft>%g ms) n=%d %-12s median %.3f p90 %.3f"%(thr*1e3,len(v),k,v[len(v)//2],v[int(len(v)*.9)]))
