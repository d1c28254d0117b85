#!/usr/bin/env python3
"""Medians over the rounds of benchmark/verdict.sh.

Usage: verdict.py [DIR]   (DIR holds verdict.sh's <check>-r<N>.json and no other *-r<N>.json; default
       benchmark/results/verdict)

For each check and row, every round gives the ratio of the target's score to its baseline's in that round
(for the codec: to the faster of the two peers in that round); printed are the median ratio, the smallest
and largest, the target's median score and its median heap bytes per message (-prof gc).
"""
import glob
import json
import os
import re
import statistics

from script_args import arguments, fail, results_dir
from tables import alloc, fmt_alloc, fmt_rate, size_label

# check prefix -> (parameter that names the contestant, target, baselines, row parameters, unit)
COMPARISONS = {
    "codec": ("contestant", "zmqzstd-segment", ["zstdjni-direct", "aircompressor-native"], ["method", "size"], "MB/s"),
    "transport": ("strategy", "zeroCopyPooled", ["byteArray"], ["transport", "size"], "msg/s"),
    "pipeline": ("contestant", "zmqzstd", ["jeromqZstdjni"], ["transport", "size"], "msg/s"),
}

# whole check name -> its comparisons, where a check compares more than its prefix's one
CHECKS = {
    # the peers used with reused arrays: zmqzstd (one compressing thread and three) against them, and
    # what reusing buys the peer itself
    "pipeline-reused": [
        ("contestant", "zmqzstd", ["jeromqZstdjniReused"], ["transport", "size", "compressionThreads"], "msg/s"),
        ("contestant", "zmqzstd", ["jeromqZstdjni"], ["transport", "size", "compressionThreads"], "msg/s"),
        # the peers ignore compressionThreads: its two rows are two runs of the same pair
        ("contestant", "jeromqZstdjniReused", ["jeromqZstdjni"], ["transport", "size", "compressionThreads"], "msg/s"),
    ],
    # parallel against parallel: zmqzstd@3 against JeroMQ + zstd-jni on three executor threads, and what
    # those threads buy the peer
    "pipeline-parallel-peer": [
        ("contestant", "zmqzstd", ["jeromqZstdjni", "jeromqZstdjniParallel"], ["transport", "size"], "msg/s"),
        ("contestant", "zmqzstd", ["jeromqZstdjniParallel"], ["transport", "size"], "msg/s"),
        ("contestant", "zmqzstd", ["jeromqZstdjni"], ["transport", "size"], "msg/s"),
        ("contestant", "jeromqZstdjniParallel", ["jeromqZstdjni"], ["transport", "size"], "msg/s"),
    ],
    # receivers that read 8 bytes of each payload and receivers that read all of it
    "transport-read": [("strategy", "zeroCopyPooled", ["byteArray"], ["transport", "size", "read"], "msg/s")],
    # one libzmq I/O thread for both ends of the connection, or one each
    "transport-io2": [("strategy", "zeroCopyPooled", ["byteArray"], ["ioThreads", "size", "read"], "msg/s")],
}


def comparisons(check):
    return CHECKS.get(check, [COMPARISONS[check.split("-")[0]]])


def rate(score, unit, size):
    return score * int(size) / 1e6 if unit == "MB/s" else score


def rounds_of(directory):
    """{check: {round: [results]}}; a file that is no round of a check, or no JMH result, fails naming it."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*-r*.json"))):
        m = re.match(r"(.+)-r(\d+)\.json$", os.path.basename(path))
        if m:
            check = m.group(1)
            if check not in CHECKS and check.split("-")[0] not in COMPARISONS:
                fail(__doc__, f"{path}: {check} is no check of verdict.sh (their names start with "
                              f"{', '.join(COMPARISONS)})")
            with open(path) as f:
                try:
                    results = json.load(f)
                except ValueError as e:
                    fail(__doc__, f"{path}: not a JMH JSON result: {e}")
            if not isinstance(results, list):
                fail(__doc__, f"{path}: not a JMH JSON result: a {type(results).__name__}, not a list of runs")
            out.setdefault(check, {})[int(m.group(2))] = results
    return out


def main():
    given = arguments(__doc__, 0, 1)
    directory = results_dir(__doc__, given[0] if given else "benchmark/results/verdict", "*-r*.json")
    for check, rounds in sorted(rounds_of(directory).items()):
        for c in comparisons(check):
            table(check, rounds, *c)


def table(check, rounds, who, target, baselines, row_params, unit):
    """One comparison's table: per row, the median over the rounds of target / baseline."""
    ratios, scores, allocs, base_scores = {}, {}, {}, {}
    for results in rounds.values():
        cells = {}
        for r in results:
            p = dict(r["params"], method=r["benchmark"].rsplit(".", 1)[1])
            key = tuple(p[k] for k in row_params)
            cells.setdefault(key, {})[p[who]] = r
        for key, by in cells.items():
            if target not in by or not any(b in by for b in baselines):
                continue
            size = key[row_params.index("size")]
            t = rate(by[target]["primaryMetric"]["score"], unit, size)
            best = max(rate(by[b]["primaryMetric"]["score"], unit, size) for b in baselines if b in by)
            ratios.setdefault(key, []).append(t / best)
            scores.setdefault(key, []).append(t)
            base_scores.setdefault(key, []).append(best)
            allocs.setdefault(key, []).append(alloc(by[target]))
    base_name = " or ".join(baselines) if len(baselines) > 1 else baselines[0]
    print(f"**{check}**: {target} against {'the faster of ' if len(baselines) > 1 else ''}{base_name}, "
          f"{len(rounds)} rounds\n")
    print("| " + " | ".join(row_params) + f" | {target} {unit} (median) | {base_name} {unit} (median) "
          f"| ratio, median | ratio, min–max | {target} B/msg (median) |")
    print("|" + "---|" * (len(row_params) + 5))
    for key in sorted(ratios, key=lambda k: tuple(int(x) if str(x).isdigit() else x for x in k)):
        labels = [size_label(v) if p == "size" else str(v) for p, v in zip(row_params, key)]
        rs = ratios[key]
        print("| " + " | ".join(labels) + f" | {fmt_rate(statistics.median(scores[key]))} | "
              f"{fmt_rate(statistics.median(base_scores[key]))} | **{statistics.median(rs):.2f}** | "
              f"{min(rs):.2f}–{max(rs):.2f} | {fmt_alloc(statistics.median(allocs[key]))} |")
    print()


if __name__ == "__main__":
    main()
