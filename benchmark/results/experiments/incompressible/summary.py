#!/usr/bin/env python3
"""Summarises run.sh's files here: per kind and size, each way's rate against jeromqZstdjni (median of
the rounds) in every JVM and the median over the JVMs, and raw-when-incompressible against compressing
every payload (zmqzstd / zmqzstd~, zmqzstd@3 / zmqzstd@3~), paired by JVM. A JVM's x is the median of its
per-round ratios (the mean of the middle two of the 10), as benchmark/scripts/interleaved.py takes it; until
2026-11-28 it was the printed median, which the harness took as the upper middle round."""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from interleaved import jvm_medians  # noqa: E402

WAYS = ["zmqzstd", "zmqzstd~", "zmqzstd@3", "zmqzstd@3~"]
print("PipelineOverhead tcp level 3, 10 rounds per JVM; x = rate / jeromqZstdjni (median of rounds)")
for kind in ["random", "telemetry"]:
    for size in [1024, 4096, 16384, 65536]:
        files = sorted(glob.glob(f"{kind}-{size}-j*.txt"), key=lambda f: int(re.search(r"-j(\d+)", f).group(1)))
        if not files:
            continue
        x = {w: [] for w in WAYS}
        rates = {w: [] for w in ["jeromqZstdjni"] + WAYS}
        for f in files:
            t = open(f).read()
            medians = jvm_medians(t)
            for w in ["jeromqZstdjni"] + WAYS:
                rates[w].append(int(re.search(r"^" + re.escape(w) + r"\s+msgs_per_s=(\d+)", t, re.M).group(1)))
                if w != "jeromqZstdjni":
                    x[w].append(medians[w][1])
        print(f"{kind} {size} B, {len(files)} JVMs: jeromqZstdjni msg/s {rates['jeromqZstdjni']}")
        for w in WAYS:
            print(f"  {w:12s} x {[round(v, 4) for v in x[w]]} median {statistics.median(x[w]):.3f}  msg/s {rates[w]}")
        for a, b in [("zmqzstd", "zmqzstd~"), ("zmqzstd@3", "zmqzstd@3~")]:
            r = [p / q for p, q in zip(x[a], x[b])]
            print(f"  {a} / {b} per JVM {[round(v, 3) for v in r]} median {statistics.median(r):.3f}"
                  f" (higher in {sum(v > 1 for v in r)} of {len(r)})")
