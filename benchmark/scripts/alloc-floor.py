#!/usr/bin/env python3
"""Tables for alloc-floor.sh: per cell, the score, -prof gc's bytes per operation, bytes per measured
iteration (B/op x operations in the iteration), and B/op above the floor: the median bytes per iteration
of AllocationFloorBenchmark (JMH's own allocation, the same at 1 s and 10 s iterations).

Operations in an iteration: that iteration's own score x iteration time (the iterations of one cell
differ by up to a third on a shared VM, so the cell's mean score would misstate each iteration's bytes),
rounded up to whole invocations (PipelineBenchmark
receives 500 messages per invocation, TransportBenchmark 10,000, and JMH ends an iteration only after the
invocation running at its end: at 1 MiB one pipeline invocation takes about 1.4 s, so a "1 s" iteration
holds 500 messages).

Usage: alloc-floor.py [DIR]   (default benchmark/results/experiments/alloc-floor; DIR holds alloc-floor.sh's
       floor-1s.json and floor-10s.json, and the other cells' JSON it finds)
"""
import json
import math
import statistics
from pathlib import Path

from script_args import arguments, files

PER_INVOCATION = {"PipelineBenchmark.transfer": 500, "TransportBenchmark.sendReceive": 10_000}
ROWS = [  # file, title, the parameters that name a row
    ("pipeline-1s", "PipelineBenchmark, tcp, level 3, no dictionary, 1 s iterations", ("contestant", "size")),
    ("pipeline-10s", "PipelineBenchmark, tcp, level 3, no dictionary, 10 s iterations", ("contestant", "size")),
    ("transport", "TransportBenchmark, blocking receive, 1 s iterations", ("strategy", "transport", "size")),
    ("codec", "CodecBenchmark, level 3, telemetry, 0.5 s iterations", ("contestant", "size")),
    ("codec-64m", "CodecBenchmark, level 3, telemetry, 4 s iterations", ("contestant", "size")),
]


def cells(path):
    """Per cell: the result, its score, its B/op, the bytes of each measured iteration and the operations of
    each (that iteration's B/op times its own operations)."""
    for b in json.loads(path.read_text()):
        value, unit = b["measurementTime"].split()  # "1 s", "500 ms"
        seconds = float(value) / (1000 if unit == "ms" else 1)
        norm = b["secondaryMetrics"]["gc.alloc.rate.norm"]
        per_invocation = PER_INVOCATION.get(".".join(b["benchmark"].split(".")[-2:]), 1)
        ops = [math.ceil(score * seconds / per_invocation) * per_invocation for score in b["primaryMetric"]["rawData"][0]]
        per_it = [x * n for x, n in zip(norm["rawData"][0], ops)]
        yield b, b["primaryMetric"]["score"], norm["score"], per_it, ops


def main(out):
    out = Path(out)
    print("**Control** (`AllocationFloorBenchmark`: operations that allocate nothing)\n")
    print("| iteration | parkMicros | ops/s | B/op | bytes per iteration (each measured iteration) |")
    print("|---|---|---|---|---|")
    floors = []
    for name in ("floor-1s", "floor-10s"):
        for b, score, norm, per_it, _ in cells(out / f"{name}.json"):
            floors.extend(per_it)
            print(f"| {b['measurementTime']} | {b['params']['parkMicros']} | {score:,.0f} | {norm:.3f} | "
                  + ", ".join(f"{x:,.0f}" for x in per_it) + " |")
    floor = statistics.median(floors)
    print(f"\nFloor: {floor:,.0f} B per iteration (median of the {len(floors)} iterations above)")
    for name, title, keys in ROWS:
        path = out / f"{name}.json"
        if not path.exists():
            continue
        print(f"\n**{title}**\n")
        print("| " + " | ".join(keys) + " | method | ops/s | B/op (-prof gc) | bytes per iteration (each measured iteration) | B/op above the floor |")
        print("|" + "---|" * (len(keys) + 5))
        for b, score, norm, per_it, ops in cells(path):
            # what each iteration allocated above the floor, per operation of that iteration
            above = statistics.median((x - floor) / n for x, n in zip(per_it, ops))
            shown = f"{above:,.3f}" if above > 0 else f"at or below it ({above:,.3f})"
            print("| " + " | ".join(str(b["params"][k]) for k in keys) + f" | {b['benchmark'].split('.')[-1]} | {score:,.0f} | "
                  f"{norm:,.3f} | " + ", ".join(f"{x:,.0f}" for x in per_it) + f" | {shown} |")


if __name__ == "__main__":
    given = arguments(__doc__, 0, 1)
    directory = given[0] if given else "benchmark/results/experiments/alloc-floor"
    files(__doc__, [f"{directory}/floor-1s.json", f"{directory}/floor-10s.json"])
    main(directory)
