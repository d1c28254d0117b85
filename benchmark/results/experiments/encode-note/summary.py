#!/usr/bin/env python3
"""new/old messages per second per cell (size, compressing threads) from run.sh's JSON files."""
import glob, json, os, statistics, sys
out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/encode-note'
def load(path):
    return {(int(b['params']['size']), int(b['params']['compressionThreads'])):
            (b['primaryMetric']['score'], b['secondaryMetrics'].get('gc.alloc.rate.norm', {}).get('score'))
            for b in json.load(open(path))}
rounds = sorted(int(os.path.basename(p)[4:-5]) for p in glob.glob(f'{out}/new-*.json'))
ratios, alloc = {}, {}
for r in rounds:
    old, new = load(f'{out}/old-{r}.json'), load(f'{out}/new-{r}.json')
    for k in new:
        if k in old:
            ratios.setdefault(k, []).append(new[k][0] / old[k][0])
            alloc.setdefault(k, []).append(new[k][1])
print('| size | compressing threads | new / old, median | min-max | rounds | new B/msg (median) |')
print('|---|---|---|---|---|---|')
for k in sorted(ratios):
    rs = ratios[k]
    print(f'| {k[0]} | {k[1] or 1} | {statistics.median(rs):.3f} | {min(rs):.3f}-{max(rs):.3f} | {len(rs)} | {statistics.median(alloc[k]):.2f} |')
