#!/usr/bin/env python3
"""Reads `perf script -F comm,ip,dso` lines on stdin; prints each thread's µs on a CPU per message by library.

Usage: cpu-by-library.py --name NAME --score MSG_PER_S --freq HZ --seconds S
Threads are grouped by role from their names (compressing workers, the sending thread, the receiving
JMH thread, the transport's I/O thread); libraries by the shared object a sample fell in.
"""
import argparse
import collections
import re
import sys

ROLES = [("compress workers", r"^zmqzstd-compres"), ("sending thread", r"^(zmqzstd-sender|jeromq-sender)"),
         ("receiver (JMH thread)", r"^io\.zmqzstd\.benc"), ("I/O thread", r"^(ZMQbg/IO|iothread)")]
LIBS = [("zstd", r"libzstd"), ("libzmq", r"libzmq"), ("kernel", r"kernel\.kallsyms|\[vdso\]"),
        ("Java (JIT)", r"^\[JIT\]|perf-\d+\.map"), ("libc", r"libc\.so"), ("JVM", r"libjvm|libnio|libjava")]


def classify(value, table):
    for name, pattern in table:
        if re.search(pattern, value):
            return name
    return "other"


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--name", required=True)
    a.add_argument("--score", type=float, required=True)
    a.add_argument("--freq", type=float, required=True)
    a.add_argument("--seconds", type=float, required=True)
    args = a.parse_args()
    counts = collections.Counter()
    # One sample per line ("comm ip (dso)"), or with call chains the thread's name on a line of its
    # own and then its frames, leaf first, each on a line that starts with a tab.
    comm = None
    for line in sys.stdin:
        if not line.strip():
            continue
        if line.startswith("\t"):
            if comm is not None:
                m = re.search(r"\((.*)\)\s*$", line)
                counts[(classify(comm, ROLES), classify(m.group(1) if m else "", LIBS))] += 1
                comm = None  # the leaf frame only
            continue
        m = re.match(r"^\s*(\S.*?)\s+[0-9a-f]+\s+\((.*)\)\s*$", line)
        if m:
            counts[(classify(m.group(1), ROLES), classify(m.group(2), LIBS))] += 1
        else:
            comm = line.strip()
    per_msg = 1e6 / (args.freq * args.seconds * args.score)  # µs per message per sample
    total = sum(counts.values())
    libs = [name for name, _ in LIBS] + ["other"]
    roles = [name for name, _ in ROLES] + ["other"]
    print(f"# {args.name}: {args.score:,.0f} msg/s, cores busy {total / (args.freq * args.seconds):.2f}, "
          f"{total * per_msg:.2f} µs on a CPU per message")
    print("| thread | " + " | ".join(libs) + " | all |")
    print("|---" * (len(libs) + 2) + "|")
    for role in roles:
        row = [counts[(role, lib)] * per_msg for lib in libs]
        if sum(row) > 0:
            print(f"| {role} | " + " | ".join(f"{v:.2f}" for v in row) + f" | {sum(row):.2f} |")
    col = [sum(counts[(r, lib)] for r in roles) * per_msg for lib in libs]
    print("| all | " + " | ".join(f"{v:.2f}" for v in col) + f" | {total * per_msg:.2f} |")


if __name__ == "__main__":
    main()
