import json, sys, statistics
out = sys.argv[1]
rows = {}
for r in range(1, 100):
    try:
        o = json.load(open(f'{out}/pipeline-old-{r}.json')); n = json.load(open(f'{out}/pipeline-new-{r}.json'))
    except FileNotFoundError:
        break
    for a, b in zip(o, n):
        k = a['params']['size']; assert k == b['params']['size']
        rows.setdefault(k, []).append((b['primaryMetric']['score'] / a['primaryMetric']['score'], b['primaryMetric']['score'], a['primaryMetric']['score'],
            b['secondaryMetrics']['gc.alloc.rate.norm']['score'], a['secondaryMetrics']['gc.alloc.rate.norm']['score']))
print('| size | new / old per round | median | new msg/s (median) | old msg/s (median) | new B/msg | old B/msg |')
print('|---|---|---|---|---|---|---|')
for k, v in rows.items():
    m = lambda i: statistics.median(x[i] for x in v)
    print(f"| {k} | {', '.join('%.3f' % x[0] for x in v)} | {m(0):.3f} | {m(1):,.0f} | {m(2):,.0f} | {m(3):.3f} | {m(4):.3f} |")
