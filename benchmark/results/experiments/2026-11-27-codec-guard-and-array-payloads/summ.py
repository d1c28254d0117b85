import json,glob,collections,statistics,sys
pre=sys.argv[1]; a,b=sys.argv[2],sys.argv[3]
d=collections.defaultdict(dict)
for f in sorted(glob.glob('/tmp/exp27/%s-r*-*.json'%pre)):
    r,v=f.split('/')[-1][:-5].split('-')[1:]
    try: js=json.load(open(f))
    except Exception: continue
    for x in js:
        key=(x['benchmark'].split('.')[-1], x['params']['size'])
        sm=x.get('secondaryMetrics',{}).get('gc.alloc.rate.norm',{}).get('score')
        d[key].setdefault(r,{})[v]=(x['primaryMetric']['score'],sm)
for key,rs in sorted(d.items()):
    ratios=[x[b][0]/x[a][0] for x in rs.values() if a in x and b in x]
    print(key, 'ratios', ' '.join('%.3f'%x for x in ratios), 'median %.3f'%statistics.median(ratios) if ratios else '')
    print('   %s'%a, ' '.join('%.0f'%x[a][0] for x in rs.values() if a in x), ' B/op', ' '.join('%.1f'%x[a][1] for x in rs.values() if a in x and x[a][1] is not None))
    print('   %s'%b, ' '.join('%.0f'%x[b][0] for x in rs.values() if b in x), ' B/op', ' '.join('%.1f'%x[b][1] for x in rs.values() if b in x and x[b][1] is not None))
