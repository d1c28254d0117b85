#!/usr/bin/env python3
"""Markdown tables for BENCHMARKS.md from JMH JSON results (benchmark/results/*.json).

Usage: tables.py RESULTS_DIR > tables.md
Each table compares contestants measured in the same JMH run; "x" columns are ratios of msg/s to the
named baseline in that run; "B/msg" is gc.alloc.rate.norm (bytes allocated per operation = per message).
"""
import json
import os

from script_args import arguments, results_dir


def load(path):
    with open(path) as f:
        return json.load(f)


def key(r, drop):
    return tuple(sorted((k, v) for k, v in r["params"].items() if k not in drop))


def alloc(r):
    m = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    return m["score"] if m else float("nan")


def fmt_rate(x):
    if x >= 100_000:
        return f"{x / 1000:,.0f} K"
    if x >= 1000:
        return f"{x / 1000:,.1f} K"
    return f"{x:,.1f}"


def fmt_alloc(x):
    if x != x:
        return "n/a"
    if x >= 1_000_000:
        return f"{x / 1e6:,.1f} MB"
    if x >= 10_000:
        return f"{x / 1e3:,.1f} KB"
    if x >= 10:
        return f"{x:,.0f}"
    return f"{x:.2f}"


def size_label(s):
    s = int(s)
    if s >= 1 << 20:
        return f"{s >> 20} MiB"
    if s >= 1024:
        return f"{s >> 10} KiB"
    return f"{s} B"


def load_c(path, library):
    """The C ceiling's lines (benchmark/c/run.sh) made with the system's or the bundled libzstd (library=...):
    {(affinity, size, level, transport, dictionary): msg/s}."""
    ref = {}
    if not os.path.exists(path):
        return ref
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "msgs_per_s" in kv and kv.get("library", "system") == library:
                k = (kv.get("affinity", "none"), kv["size"], kv["level"], kv["transport"], kv["dictionary"])
                ref[k] = float(kv["msgs_per_s"])
    return ref


def c_of(ref, params):
    return ref.get((params.get("affinity", "none"), params["size"], params["level"], params["transport"],
                    params["dictionary"]))


# zeroCopyThresholdBytes: 0 sends every message zero-copy, 1 TiB copies every one.
THRESHOLD_NAMES = {"0": "zero-copy", "1099511627776": "copy"}


def table(results, column_param, baseline, row_params, title, method=None, mbps=False, c_ref=None, c_vs="zmqzstd",
          names=None):
    """Rows: distinct values of row_params; columns: values of column_param (msg/s, x baseline, B/msg).
    With c_ref (load_c), two more columns: the C program's msg/s for the row and c_vs's ratio to it.
    names maps a column's parameter value to the word shown in the header (a threshold of 0 reads as
    "zero-copy", not "0")."""
    def name(c):
        return (names or {}).get(c, c)

    rs = [r for r in results if method is None or r["benchmark"].endswith("." + method)]
    if not rs:
        return ""
    columns = []
    for r in rs:
        c = r["params"][column_param]
        if c not in columns:
            columns.append(c)
    rows = {}
    for r in rs:
        rk = tuple(r["params"].get(p, "") for p in row_params)
        rows.setdefault(rk, {})[r["params"][column_param]] = r
    unit = "MB/s" if mbps else "msg/s"
    out = [f"**{title}**", ""]
    head = "| " + " | ".join(row_params) + " | " + " | ".join(
        f"{name(c)} {unit} | x {name(baseline)}" if c != baseline else f"{name(c)} {unit}" for c in columns) + " | " + " | ".join(
        f"{name(c)} B/msg" for c in columns) + " |"
    extra = 2 if c_ref else 0
    if c_ref:
        head += f" C msg/s | {c_vs} x C |"
    out.append(head)
    out.append("|" + "---|" * (len(row_params) + 2 * len(columns) - (1 if baseline in columns else 0) + len(columns) + extra))
    for rk in sorted(rows, key=lambda k: tuple(int(x) if str(x).isdigit() else x for x in k)):
        cells = rows[rk]
        base = cells.get(baseline)
        base_score = base["primaryMetric"]["score"] if base else None
        vals = []
        for c in columns:
            r = cells.get(c)
            if r is None:
                vals.append("")
                if c != baseline:
                    vals.append("")
                continue
            score = r["primaryMetric"]["score"]
            size = int(r["params"].get("size", 0))
            shown = f"{score * size / 1e6:,.1f}" if mbps else fmt_rate(score)
            vals.append(shown)
            if c != baseline:
                vals.append(f"{score / base_score:.2f}" if base_score else "")
        allocs = [fmt_alloc(alloc(cells[c])) if c in cells else "" for c in columns]
        labels = [size_label(v) if p == "size" else str(v) for p, v in zip(row_params, rk)]
        line = "| " + " | ".join(labels) + " | " + " | ".join(vals) + " | " + " | ".join(allocs) + " |"
        if c_ref:
            any_r = next(iter(cells.values()))
            c = c_of(c_ref, any_r["params"])
            mine = cells.get(c_vs)
            line += f" {fmt_rate(c)} | " if c else " | "
            line += f"{mine['primaryMetric']['score'] / c:.2f} |" if c and mine else " |"
        out.append(line)
    out.append("")
    return "\n".join(out)


def fmt_us(x):
    if x >= 10_000:
        return f"{x / 1000:,.1f} ms"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.1f}"


def latency_table(results, baseline, title):
    """LatencyBenchmark (sample mode, -prof gc): one row per transport, size and contestant with the percentiles
    of the round trip in microseconds, p50 and p99 as a ratio to the baseline's (below 1: faster), bytes
    allocated per round trip, and the collections during measurement."""
    if not results:
        return ""
    pct = [("50.0", "p50"), ("90.0", "p90"), ("99.0", "p99"), ("99.9", "p99.9"), ("99.99", "p99.99"), ("100.0", "max")]
    by = {}
    for r in results:
        p = r["params"]
        by.setdefault((p["transport"], int(p["size"])), {})[p["contestant"]] = r
    out = [f"**{title}**", "",
           "| transport | size | contestant | samples | " + " | ".join(f"{n} µs" for _, n in pct)
           + f" | p50 x {baseline} | p99 x {baseline} | B/op | GCs | GC ms |",
           "|" + "---|" * (4 + len(pct) + 5)]
    for (transport, size) in sorted(by, key=lambda k: (k[0] != "tcp", k[1])):
        cells = by[(transport, size)]
        base = cells.get(baseline)
        for name, r in cells.items():
            m = r["primaryMetric"]
            ps = m["scorePercentiles"]
            sec = r.get("secondaryMetrics", {})
            samples = sum(sum(c for _, c in it) for it in m["rawDataHistogram"][0]) if m.get("rawDataHistogram") else 0
            ratio = lambda k: f"{ps[k] / base['primaryMetric']['scorePercentiles'][k]:.2f}" if base else ""
            gc_count = sec.get("gc.count", {}).get("score", 0)
            gc_ms = sec.get("gc.time", {}).get("score", 0)
            out.append(f"| {transport} | {size_label(size)} | {name} | {samples:,} | "
                       + " | ".join(fmt_us(ps[k]) for k, _ in pct)
                       + f" | {ratio('50.0')} | {ratio('99.0')} | {fmt_alloc(alloc(r))} | {gc_count:.0f} | {gc_ms:.0f} |")
    out.append("")
    return "\n".join(out)


def main():
    d = results_dir(__doc__, arguments(__doc__, 1, 1)[0], "*.json")
    j = lambda n: load(os.path.join(d, n + ".json")) if os.path.exists(os.path.join(d, n + ".json")) else []
    # 64 MiB runs in its own invocation with long iterations (run-all.sh codec-64m); one table with the rest.
    codec = j("codec") + j("codec-64m")
    samelib = j("codec-samelib") + j("codec-samelib-64m")
    print(table(codec, "contestant", "zstdjni-direct", ["size"], "Codec compress, level 3, telemetry (MB/s of input)", "compress", mbps=True))
    print(table(codec, "contestant", "zstdjni-direct", ["size"], "Codec decompress, level 3, telemetry (MB/s of output)", "decompress", mbps=True))
    print(table(samelib, "contestant", "zstdjni-direct", ["size"], "Codec compress, every contestant on libzstd 1.5.7 (bundled), level 3", "compress", mbps=True))
    print(table(samelib, "contestant", "zstdjni-direct", ["size"], "Codec decompress, every contestant on libzstd 1.5.7 (bundled), level 3", "decompress", mbps=True))
    for n, t in (("codec-level1", "level 1, telemetry"), ("codec-binary", "level 3, binary")):
        for m in ("compress", "decompress"):
            print(table(j(n), "contestant", "zstdjni-direct", ["size"], f"Codec {m}, {t} (MB/s)", m, mbps=True))
    print(table(j("transport"), "strategy", "byteArray", ["size"], "Transport, ROUTER to ROUTER over tcp, blocking receive"))
    print(table(j("transport-inproc"), "strategy", "byteArray", ["size"], "Transport, ROUTER to ROUTER over inproc, blocking receive"))
    print(table(j("transport-receive"), "receiveMode", "blocking", ["strategy", "size"], "Receive modes over tcp"))
    print(table(j("switchover-transport"), "zeroCopyThresholdBytes", "1099511627776", ["transport", "size"],
                "Zero-copy (threshold 0) against always copying (threshold 1 TiB), zeroCopyPooled strategy",
                names=THRESHOLD_NAMES))
    c_ref = load_c(os.path.join(d, "c", "pipeline_ref.txt"), "system")
    c_ref_157 = load_c(os.path.join(d, "c", "pipeline_ref.txt"), "bundled")
    rows = ["affinity", "transport", "size"]
    print(table(j("pipeline"), "contestant", "jeromqZstdjni", rows, "Pipeline, level 3, no dictionary", c_ref=c_ref))
    print(table(j("pipeline-trained"), "contestant", "jeromqZstdjni", rows, "Pipeline, level 3, trained dictionary", c_ref=c_ref))
    print(table(j("pipeline-level1"), "contestant", "jeromqZstdjni", rows, "Pipeline, level 1, tcp", c_ref=c_ref))
    print(table(j("pipeline-samelib"), "contestant", "jeromqZstdjni", rows,
                "Pipeline over tcp, level 3, every contestant on libzstd 1.5.7", c_ref=c_ref_157))
    print(table(j("pipeline-flow"), "flow", "batch", ["contestant", "size"], "Pipeline over tcp, level 3: streaming against batch-and-drain pacing"))
    print(table(j("switchover-pipeline"), "zeroCopyThresholdBytes", "1099511627776", ["transport", "size"],
                "Pipeline zmqzstd: zero-copy (threshold 0) against always copying (1 TiB)", names=THRESHOLD_NAMES))
    print(latency_table(j("latency"), "jeromqZstdjni", "Round trip: compressed request, 8-byte acknowledgement, level 3"))
    print(table(j("raw-frames"), "rawFrameBelowBytes", "0", ["size"], "Pipeline zmqzstd over tcp: raw-block frames below 1 KiB against compressing (64, 128, 256 B)",
                names={"0": "compressed", "1024": "raw"}))


if __name__ == "__main__":
    main()
