import json,glob,statistics as st,collections,sys,re
d=sys.argv[1] if len(sys.argv)>1 else '.'
res=collections.defaultdict(dict)  # key -> {(r,v): (score, alloc)}
for f in sorted(glob.glob(d+'/pub-r*-*.json')):
    m=re.search(r'-r(\d+)-(\w+)\.json$',f); r,v=int(m.group(1)),m.group(2)
    try: data=json.load(open(f))
    except Exception: continue
    for b in data:
        p=b['params']; key=f"{p['size']} B {p['transport']}"
        alloc=b['secondaryMetrics'].get('gc.alloc.rate.norm',{}).get('score')
        res[key][(r,v)]=(b['primaryMetric']['score'],alloc)
for key in sorted(res):
    rounds=sorted({r for r,_ in res[key]})
    ratios=[];olds=[];news=[];ao=[];an=[]
    for r in rounds:
        if (r,'old') in res[key] and (r,'new') in res[key]:
            o=res[key][(r,'old')];n=res[key][(r,'new')]
            ratios.append(n[0]/o[0]); olds.append(o[0]); news.append(n[0]); ao.append(o[1]); an.append(n[1])
    print(f"{key}: old {min(olds):,.0f}-{max(olds):,.0f} new {min(news):,.0f}-{max(news):,.0f} msg/s; ratios {', '.join(f'{x:.3f}' for x in ratios)} median {st.median(ratios):.3f}; B/msg old {min(ao):.3f}-{max(ao):.3f} new {min(an):.3f}-{max(an):.3f}")
