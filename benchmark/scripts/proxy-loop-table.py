#!/usr/bin/env python3
"""ProxyBenchmark: ZmqProxy's loop against libzmq's zmq_proxy_steerable, per round.

Usage: python3 benchmark/scripts/proxy-loop-table.py ROUND1.json [ROUND2.json ...]

Each JSON is one JMH run of ProxyBenchmark with both loops (see BENCHMARKS.md, "What the proxy's own
loop costs"). Every cell gives the rounds' values in order, separated by " / ": each loop's messages per
second, zmqzstd's over libzmq's within the round, and bytes per message (-prof gc, every thread);
then the median of the rounds' ratios and in how many rounds zmqzstd's loop moved more.
"""
import json
import statistics

from script_args import arguments, fail, files

LOOPS = ["zmqzstd", "libzmq"]
TRANSPORTS = ["inproc", "tcp"]
SIZES = {64: "64 B", 1024: "1 KiB"}


def load(path):
    rows = {}
    for r in json.load(open(path)):
        if not r["benchmark"].endswith("ProxyBenchmark.transfer"):
            continue  # another benchmark's result: main() names the cells missing
        p = r["params"]
        rows[(p["transport"], int(p["size"]), p["loop"])] = (
            r["primaryMetric"]["score"], r["secondaryMetrics"]["gc.alloc.rate.norm"]["score"])
    return rows


def rate(x):
    return "%.0f K" % (x / 1000)


def joined(values, fmt):
    return " / ".join(fmt(v) for v in values)


def main():
    paths = files(__doc__, arguments(__doc__, 1))
    rounds = [load(path) for path in paths]
    for path, cells in zip(paths, rounds):
        for key in ((t, size, loop) for t in TRANSPORTS for size in SIZES for loop in LOOPS):
            if key not in cells:
                fail(__doc__, f"{path}: no result for transport=%s, size=%d, loop=%s" % key)
    print("| transport | size | zmqzstd loop msg/s | libzmq loop msg/s | zmqzstd / libzmq | median | rounds above 1 "
          "| B/msg zmqzstd | B/msg libzmq |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in TRANSPORTS:
        for size, label in SIZES.items():
            ours = [r[(t, size, "zmqzstd")] for r in rounds]
            theirs = [r[(t, size, "libzmq")] for r in rounds]
            ratios = [o[0] / l[0] for o, l in zip(ours, theirs)]
            print("| %s | %s | %s | %s | %s | %.3f | %d/%d | %s | %s |" % (
                t, label, joined(ours, lambda v: rate(v[0])), joined(theirs, lambda v: rate(v[0])),
                joined(ratios, lambda r: "%.2f" % r), statistics.median(ratios), sum(1 for r in ratios if r > 1),
                len(ratios), joined(ours, lambda v: "%.2f" % v[1]), joined(theirs, lambda v: "%.2f" % v[1])))


if __name__ == "__main__":
    main()
