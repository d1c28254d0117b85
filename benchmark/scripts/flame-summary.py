#!/usr/bin/env python3
"""What a flamegraph is made of, from async-profiler collapsed stacks (collapsed-*.csv).

Usage: flame-summary.py cpu FILE...      -> share of samples by the category of the leaf (self) frame
       flame-summary.py alloc FILE...    -> share of allocation samples (≈ bytes) by allocation site and type
       (one report per FILE, each headed by its name when there are several)
Categories are decided by frame names (first match wins, leaf first); see CATEGORIES.
"""
import collections

from script_args import arguments, fail, files

# (category, substrings that identify it in a frame name)
CATEGORIES = [
    ("zstd compress", ("ZSTD_compress", "ZSTD_compressBlock", "HUF_compress", "FSE_", "ZSTD_RowFindBestMatch",
                       "ZSTD_encodeSequences", "ZSTD_buildSeqStore", "ZSTD_fillHashTable", "ZSTD_fillDoubleHashTable",
                       "ZSTD_entropyCompress", "ZSTD_ldm", "ZSTD_count", "HIST_")),
    ("zstd decompress", ("ZSTD_decompress", "HUF_decompress", "ZSTD_decode", "ZSTD_execSequence", "HUF_readDTable",
                         "ZSTD_buildFSETable", "ZSTD_copy", "ZSTD_safecopy", "HUF_")),
    ("memcpy", ("memcpy", "memmove", "arraycopy", "copyMemory", "Copy::", "jbyte_disjoint", "jlong_disjoint",
                "MemorySegment.copy", "ScopedMemoryAccess.copyMemory")),
    ("GC", ("G1", "GC", "Collector", "Parallel", "Mark", "Evacuat", "OopClosure", "Barrier")),
    ("JIT", ("C2Compiler", "Compile::", "CompileBroker", "C1", "PhaseIdealLoop", "PhaseChaitin", "Matcher::")),
    ("allocation (JVM)", ("MemAllocator", "CollectedHeap", "OptoRuntime::new", "InstanceKlass::allocate",
                         "TypeArrayKlass::allocate", "AllocTracer")),
    ("libzmq", ("zmq::", "zmq_", "libzmq")),
    ("JeroMQ (Java)", ("zmq/", "org/zeromq")),
    ("zstd-jni (Java)", ("com/github/luben",)),
    ("zmq-zstd (Java)", ("io/zmqzstd/pipeline", "io/zmqzstd/transport", "io/zmqzstd/codec")),
    ("benchmark harness", ("io/zmqzstd/benchmark", "org/openjdk/jmh")),
    ("FFM downcall glue", ("jdk/internal/foreign", "java/lang/invoke")),
    ("kernel / syscalls", ("_[k]", "entry_SYSCALL", "syscall", "__libc_send", "__libc_recv", "epoll", "futex", "poll",
                           "tcp_", "sock_", "do_syscall", "__send", "__recv", "read", "write")),
    ("thread park / wake", ("Unsafe.park", "Unsafe.unpark", "LockSupport", "pthread_cond", "Parker::")),
]


def category(frames):
    for frame in reversed(frames):
        for name, keys in CATEGORIES:
            if any(k in frame for k in keys):
                return name
    return "other"


def read(path):
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if stack:
                yield stack.split(";"), int(count)


def cpu_totals(path):
    """Samples by the category of their leaf frame."""
    totals = collections.Counter()
    for frames, n in read(path):
        leaf = frames[-1]
        if "libzstd.so" in leaf:
            # A stripped libzstd (Debian's) shows no function names: attribute by the Java caller.
            callers = ";".join(frames)
            totals["zstd decompress" if "Decompress" in callers else "zstd compress"] += n
        else:
            totals[category(frames[-1:])] += n  # self time: the leaf frame
    return totals


def cpu(path):
    report(cpu_totals(path), "samples")


def alloc_sites(path):
    """Allocation samples by "TYPE at SITE", the site the innermost library frame."""
    sites = collections.Counter()
    for frames, n in read(path):
        kind = frames[-1].replace("_[i]", "").replace("_[k]", "")
        site = next((f for f in reversed(frames[:-1]) if f.startswith(("io/zmqzstd", "org/zeromq", "zmq/", "com/github"))
                     and "benchmark" not in f), "(no library frame)")
        sites[f"{kind} at {site}"] += n
    return sites


def alloc(path):
    report(alloc_sites(path), "samples (async-profiler samples allocations by size, so shares are shares of bytes)")


def report(counter, unit):
    total = sum(counter.values()) or 1
    print(f"total {total:,} {unit}")
    for name, n in counter.most_common(12):
        print(f"{100.0 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    mode, *paths = arguments(__doc__, 2)
    if mode not in ("cpu", "alloc"):
        fail(__doc__, f"the first argument is cpu or alloc: {mode}")
    for path in files(__doc__, paths):
        if len(paths) > 1:
            print(f"\n{path}")
        {"cpu": cpu, "alloc": alloc}[mode](path)
