#!/usr/bin/env python3
"""Summarises benchmark/interleaved.sh: one row per cell and way over the cell's JVM runs.

Each run file is the output of TransportOverhead or CodecOverhead: a header line of key=value words
(transport= or method=, size=, ...), then one line per way that names the way and its ratio to the
baseline way in the same round, median over the rounds (x_BASELINE= or speed_vs_BASELINE=), and the
ratio of every round (WAY per_round ...; CodecOverhead prints them since 2026-11-28).
A JVM's median is taken here from those per-round ratios (statistics.median: the mean of the middle two of
an even count) whenever the file has them; the printed median is used only for files without them
(CodecOverhead's and SharedPoolOverhead's before they printed rounds). Until 2026-11-28 the harness printed
the upper of the middle two rounds as the median of an even count, so the printed value of a file written
before then leans to the faster way by up to half the gap between them. The JVM is the independent unit: a row's ratio is the median of the JVMs' medians, its range their smallest and
largest, with a distribution-free 95 % interval for the median (order statistics), and the sign test
counts JVMs, not rounds.

With PAIRS (A/B: two ways of one cell, e.g. zeroCopyPooled+copy/zeroCopyPooled+all) it adds a row per
cell and pair comparing the two ways directly: each JVM's median over its rounds of A's per-round ratio
over B's (both against the baseline of the same round, so the baseline cancels).

Usage: interleaved.py DIR [A/B ...]
"""
import glob
import math
import os
import re
import statistics

from script_args import arguments, fail, results_dir
from tables import size_label

WAY = re.compile(r"^(\S+)\s+.*?\b(?:x_|speed_vs_)([\w@#+]+)=([0-9.]+)", re.M)
PER_ROUND = re.compile(r"^(\S+) per_round ([0-9. ]+)$", re.M)


def per_round(text, number=float):
    """Way -> its ratio to the baseline in every round, of the WAY per_round lines of one run's output."""
    return {way: [number(x) for x in values.split()] for way, values in PER_ROUND.findall(text)}


def jvm_medians(text, number=float):
    """Way -> (baseline, the JVM's median ratio) of one run's output, for every way but the baseline: the
    median of the per-round ratios where the output has them (statistics.median, so the mean of the middle
    two of an even count), else the printed one. NUMBER makes the values (float, or decimal.Decimal to keep
    the printed decimals exact)."""
    rounds = per_round(text, number)
    return {way: (base, statistics.median(rounds[way]) if way in rounds else number(printed))
            for way, base, printed in WAY.findall(text) if way != base}


def sign_p(k, n):
    """Two-sided exact sign test: a split at least as uneven as k of n under a fair coin."""
    low = min(k, n - k)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n)


def median_interval(values, confidence=0.95):
    """Distribution-free interval for the median from order statistics: (x_(k), x_(n+1-k)) with the
    largest k whose coverage, 1 - 2 P(Binomial(n, 1/2) < k), is at least `confidence`; None when n is
    too small for any."""
    xs = sorted(values)
    n = len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        if 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n >= confidence:
            best = (xs[k - 1], xs[n - k])
    return best


def main():
    d, *pairs = arguments(__doc__, 1)
    results_dir(__doc__, d, "*-j*.txt")
    for pair in pairs:
        if len(pair.split("/")) != 2 or "" in pair.split("/"):
            fail(__doc__, f"a pair is two ways A/B: {pair}")
    cells = {}
    for path in sorted(glob.glob(os.path.join(d, "*-j*.txt"))):
        with open(path) as f:
            text = f.read()
        if not text.strip():
            continue  # a run still being written, or one that failed before its first line
        head = dict(w.split("=", 1) for w in text.splitlines()[0].split() if "=" in w)
        kind, what = ("transport", head["transport"]) if "transport" in head else ("codec", head["method"])
        kind = head.get("kind", kind)
        rounds = per_round(text, float)
        for way, (base, median) in jvm_medians(text, float).items():
            cells.setdefault((kind, what, int(head["size"]), way, base), []).append(median)
        for pair in pairs:
            a, b = pair.split("/")
            if a in rounds and b in rounds:
                paired = [x / y for x, y in zip(rounds[a], rounds[b])]
                cells.setdefault((kind, what, int(head["size"]), a, b + " (paired)"), []).append(
                    statistics.median(paired))
    print("| kind | transport or method | size | way / baseline | JVMs | ratio, median of the JVMs' medians "
          "| median's 95 % interval | min–max | JVMs above 1 | sign test p |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (kind, what, size, way, base), ratios in sorted(cells.items()):
        above = sum(1 for r in ratios if r > 1)
        ci = median_interval(ratios)
        print(f"| {kind} | {what} | {size_label(str(size))} | {way} / {base} | {len(ratios)} | "
              f"**{statistics.median(ratios):.3f}** | {f'{ci[0]:.3f}–{ci[1]:.3f}' if ci else '–'} | "
              f"{min(ratios):.3f}–{max(ratios):.3f} | "
              f"{above}/{len(ratios)} | {sign_p(above, len(ratios)):.3g} |")


if __name__ == "__main__":
    main()
