#!/usr/bin/env python3
"""new/old throughput per cell and round from run.sh's JSON files, with the median and B/op."""
import glob, json, os, statistics, sys
out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/codec-cleaner'
def load(path):
    cells = {}
    for b in json.load(open(path)):
        key = (b['benchmark'].rsplit('.', 1)[1], int(b['params']['size']))
        alloc = b['secondaryMetrics'].get('gc.alloc.rate.norm', {}).get('score')
        cells[key] = (b['primaryMetric']['score'], alloc)
    return cells
rounds = sorted(int(os.path.basename(p)[4:-5]) for p in glob.glob(f'{out}/new-*.json'))
ratios, allocs = {}, {}
for r in rounds:
    old, new = load(f'{out}/old-{r}.json'), load(f'{out}/new-{r}.json')
    for key in new:
        if key in old:
            ratios.setdefault(key, []).append(new[key][0] / old[key][0])
            allocs.setdefault(key, []).append((old[key][1], new[key][1]))
print('| method | size | new / old, median | min-max | rounds | B/op old, new (median) |')
print('|---|---|---|---|---|---|')
for key in sorted(ratios):
    rs = ratios[key]
    a_old = statistics.median(a[0] for a in allocs[key]); a_new = statistics.median(a[1] for a in allocs[key])
    print(f'| {key[0]} | {key[1]} | {statistics.median(rs):.3f} | {min(rs):.3f}-{max(rs):.3f} | {len(rs)} | {a_old:.3f}, {a_new:.3f} |')
