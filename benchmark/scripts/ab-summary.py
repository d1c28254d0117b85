#!/usr/bin/env python3
"""Summarise an old/new experiment whose forks alternated: DIR holds PREFIX-rN-old.json and PREFIX-rN-new.json
(JMH JSON, one fork each, round N). For each benchmark cell (method and parameters), prints both builds'
score ranges, the per-round ratios new / old with their median, and the ranges of gc.alloc.rate.norm.

    python3 benchmark/scripts/ab-summary.py DIR [PREFIX]   # PREFIX: any (every *-rN-{old,new}.json)
"""
import collections
import glob
import json
import re
import statistics
import sys


def cells(folder, prefix='*'):
    """cell name -> {(round, 'old'|'new'): (score, B/op)} from the JSON files of FOLDER; a cell is named by its
    method and the parameters that differ between the cells."""
    rows = []
    for path in sorted(glob.glob('%s/%s-r*-*.json' % (folder, prefix))):
        m = re.search(r'-r(\d+)-(old|new)\.json$', path)
        if m:
            with open(path) as f:
                rows += [(int(m.group(1)), m.group(2), row) for row in json.load(f)]
    keys = {k for _, _, row in rows for k in row.get('params', {})}
    varying = sorted(k for k in keys if len({row.get('params', {}).get(k) for _, _, row in rows}) > 1)
    found = collections.defaultdict(dict)
    for n, kind, row in rows:
        name = ' '.join([row['benchmark'].rsplit('.', 1)[1]] + ['%s=%s' % (k, row['params'].get(k)) for k in varying])
        alloc = row['secondaryMetrics'].get('gc.alloc.rate.norm', {}).get('score')
        found[name][(n, kind)] = (row['primaryMetric']['score'], alloc)
    return found


def main():
    folder = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else '*'
    found = cells(folder, prefix)
    if not found:
        sys.exit('no %s-rN-{old,new}.json in %s' % (prefix, folder))
    for name in sorted(found):
        runs = found[name]
        rounds = sorted(r for r, kind in runs if kind == 'old' and (r, 'new') in runs)
        old = [runs[(r, 'old')] for r in rounds]
        new = [runs[(r, 'new')] for r in rounds]
        ratios = [n[0] / o[0] for n, o in zip(new, old)]

        def span(values, form):
            return form.format(min(values)) + '-' + form.format(max(values))

        print('%s: %d rounds; old %s new %s; ratios %s median %.3f; B/op old %s new %s' % (
            name, len(rounds), span([o[0] for o in old], '{:,.0f}'), span([n[0] for n in new], '{:,.0f}'), ', '.join('%.3f' % x for x in ratios), statistics.median(ratios),
            span([o[1] for o in old], '{:.3f}'), span([n[1] for n in new], '{:.3f}')))


if __name__ == '__main__':
    main()
