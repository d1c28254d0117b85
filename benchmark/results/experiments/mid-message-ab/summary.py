import json, glob, statistics, sys, re
out = sys.argv[1]
def cells(path):
    res = {}
    for b in json.load(open(path)):
        p = b.get('params', {})
        name = b['benchmark'].split('.')[-2]
        if name == 'TransportBenchmark':
            key = ('transport', p['strategy'], p['size'])
        else:
            key = ('pipeline', 'zmqzstd@%s' % p['compressionThreads'] if p['compressionThreads'] != '0' else 'zmqzstd', p['size'])
        alloc = b['secondaryMetrics'].get('gc.alloc.rate.norm', {}).get('score')
        res[key] = (b['primaryMetric']['score'], alloc)
    return res
rows = {}
for kind in ('transport', 'pipeline'):
    for r in range(1, 100):
        try:
            old = cells(f'{out}/{kind}-old-{r}.json'); new = cells(f'{out}/{kind}-new-{r}.json')
        except FileNotFoundError:
            break
        for k in old:
            rows.setdefault(k, []).append((new[k][0] / old[k][0], new[k][1], old[k][1], new[k][0], old[k][0]))
print('| benchmark | way | size | new / old per round | median | new msg/s (median) | old msg/s (median) | new B/msg | old B/msg |')
print('|---|---|---|---|---|---|---|---|---|')
for k, v in rows.items():
    ratios = [x[0] for x in v]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {', '.join('%.3f' % x for x in ratios)} | {statistics.median(ratios):.3f} | {statistics.median(x[3] for x in v):,.0f} | {statistics.median(x[4] for x in v):,.0f} | {statistics.median(x[1] for x in v):.3f} | {statistics.median(x[2] for x in v):.3f} |")
