#!/usr/bin/env python3
"""PipelineBenchmark with hop=none and hop=proxy: direct against through a proxy, per round.

Usage: python3 benchmark/scripts/hop-table.py ROUND1.json [ROUND2.json ...] [-- LIBZMQ1.json [LIBZMQ2.json ...]]

Each JSON is one JMH run of PipelineBenchmark with -p hop=none,proxy (see BENCHMARKS.md, "Through a
proxy"). Every cell of the tables gives the rounds' values in order, separated by " / ": throughput,
the proxy's ratio to direct and bytes per message (-prof gc) for each contestant, then zmqzstd's
ratio to each peer, direct and through the proxy, both taken within one round. After "--", one run
per round with -p hop=libzmqProxy for zmqzstd and libzmqBytes (libzmq's own proxy loop on the same
hop): a third table sets ZmqProxy's loop against it, within each round.
"""
import json

from script_args import arguments, fail, files

CONTESTANTS = ["zmqzstd", "libzmqBytes", "jeromqZstdjni"]
TRANSPORTS = ["tcp", "inproc"]
SIZES = {1024: "1 KiB", 65536: "64 KiB"}


def load(path):
    rows = {}
    for r in json.load(open(path)):
        p = r["params"]
        if not r["benchmark"].endswith("PipelineBenchmark.transfer") or "hop" not in p:
            continue  # another benchmark's result: main() names the cells missing
        rows[(p["transport"], int(p["size"]), p["contestant"], p["hop"])] = (
            r["primaryMetric"]["score"], r["secondaryMetrics"]["gc.alloc.rate.norm"]["score"])
    return rows


def rate(x):
    return "%.1f K" % (x / 1000) if x < 100000 else "%.0f K" % (x / 1000)


def alloc(x):
    return "%.2f" % x if x < 100 else "{:,.0f}".format(x)


def per_round(values, fmt):
    return " / ".join(fmt(v) for v in values)


LIBZMQ_CONTESTANTS = ["zmqzstd", "libzmqBytes"]


def print_pairs(rounds, contestants, first, second, ratio):
    """One row per transport, size and contestant: the two hops' msg/s, RATIO(first's, second's) and B/msg, per round."""
    for t in TRANSPORTS:
        for size, label in SIZES.items():
            for c in contestants:
                a = [r[(t, size, c, first)] for r in rounds]
                b = [r[(t, size, c, second)] for r in rounds]
                print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    t, label, c, per_round(a, lambda v: rate(v[0])), per_round(b, lambda v: rate(v[0])),
                    per_round(zip(a, b), lambda ab: "%.2f" % ratio(ab[0][0], ab[1][0])),
                    per_round(a, lambda v: alloc(v[1])), per_round(b, lambda v: alloc(v[1]))))


def main():
    args = arguments(__doc__, 1)
    paths, libzmq_paths = (args[:args.index("--")], args[args.index("--") + 1:]) if "--" in args else (args, [])
    if not paths or ("--" in args and len(libzmq_paths) != len(paths)):
        fail(__doc__, f"one run with hop=libzmqProxy per round after --: {len(libzmq_paths)} for {len(paths)} rounds")
    paths = files(__doc__, paths)
    rounds = [load(path) for path in paths]
    for path, cells in zip(files(__doc__, libzmq_paths), rounds):
        extra = load(path)
        for key in ((t, size, c, "libzmqProxy") for t in TRANSPORTS for size in SIZES for c in LIBZMQ_CONTESTANTS):
            if key not in extra:
                fail(__doc__, f"{path}: no result for transport=%s, size=%d, contestant=%s, hop=%s" % key)
        cells.update(extra)
    for path, cells in zip(paths, rounds):
        for key in ((t, size, c, hop) for t in TRANSPORTS for size in SIZES for c in CONTESTANTS
                    for hop in ("none", "proxy")):
            if key not in cells:
                fail(__doc__, f"{path}: no result for transport=%s, size=%d, contestant=%s, hop=%s" % key)
    print("| transport | size | contestant | direct msg/s | through the proxy msg/s | proxy / direct | B/msg direct | B/msg through the proxy |")
    print("|---|---|---|---|---|---|---|---|")
    print_pairs(rounds, CONTESTANTS, "none", "proxy", lambda first, second: second / first)
    print()
    print("| transport | size | zmqzstd / jeromqZstdjni direct | through the proxy | zmqzstd / libzmqBytes direct | through the proxy |")
    print("|---|---|---|---|---|---|")
    for t in TRANSPORTS:
        for size, label in SIZES.items():
            def ratio(peer, hop):
                return per_round(rounds, lambda r: "%.2f" % (r[(t, size, "zmqzstd", hop)][0] / r[(t, size, peer, hop)][0]))
            print("| %s | %s | %s | %s | %s | %s |" % (t, label, ratio("jeromqZstdjni", "none"), ratio("jeromqZstdjni", "proxy"),
                                                     ratio("libzmqBytes", "none"), ratio("libzmqBytes", "proxy")))
    if not libzmq_paths:
        return
    print()
    print("| transport | size | contestant | through ZmqProxy msg/s | through libzmq's proxy msg/s | ZmqProxy / libzmq's | B/msg through ZmqProxy | B/msg through libzmq's |")
    print("|---|---|---|---|---|---|---|---|")
    print_pairs(rounds, LIBZMQ_CONTESTANTS, "proxy", "libzmqProxy", lambda first, second: first / second)


if __name__ == "__main__":
    main()
