#!/usr/bin/env python3
"""Per round of this verdict (the two checks ran back to back in each round): each contestant's rate
with two I/O threads over its rate with one, and zmqzstd's faster configuration over JeroMQ + zstd-jni's
faster one; medians over the rounds with their range. Run from this directory."""
import json
import statistics as st


def load(f):
    return {(r['params']['contestant'], int(r['params']['size'])): r['primaryMetric']['score'] for r in json.load(open(f))}


for size in (1024, 65536, 1048576):
    io_z, io_j, best = [], [], []
    for n in range(1, 5):
        a, b = load(f'pipeline-parallel-tcp-r{n}.json'), load(f'pipeline-parallel-io2-r{n}.json')
        z1, z2 = a[('zmqzstd', size)], b[('zmqzstd', size)]
        j1, j2 = a[('jeromqZstdjni', size)], b[('jeromqZstdjni', size)]
        io_z.append(z2 / z1)
        io_j.append(j2 / j1)
        best.append(max(z1, z2) / max(j1, j2))
    f = lambda v: f"{st.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
    print(f"size={size} zmqzstd io2/io1 {f(io_z)}  jeromqZstdjni io2/io1 {f(io_j)}  best/best {f(best)}")
