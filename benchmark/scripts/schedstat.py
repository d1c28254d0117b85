#!/usr/bin/env python3
"""Where a benchmark's threads spend their time, from the kernel's scheduler statistics.

Runs one JMH invocation (the arguments after --) and, while its measurement runs, takes two
snapshots of every thread of the benchmark JVM: /proc/PID/task/TID/schedstat (time on a CPU, time
runnable but waiting for one) and /proc/PID/task/TID/status (voluntary and involuntary context
switches). Prints, per thread that ran in between, the share of the window it spent on a CPU, the
share it spent runnable and waiting for a CPU (preempted or not yet scheduled), the rest (blocked:
waiting for a message, a credit, a lock), and its context switches per second; with the JMH score
(operations per second over the iteration), each thread's time on a CPU per operation.

With --batch NAME[,NAME...], threads whose name starts with one of the NAMEs are switched to
SCHED_BATCH (chrt -b) four seconds into the run, to see what wake-up preemption costs.

With --process, the arguments after -- are a command to run as it is (the C pipeline, for example:
benchmark/c/pipeline_ref), and its own threads are measured; its output is printed at the end.

With --log FILE, the run's whole output is written to FILE as well.

A run that ends before the first snapshot, or a JMH run that gives no score (its trial failed), makes the
exit status 1 (or the run's own status, when not 0), with a line on standard error that says so.

Usage: schedstat.py [--settle S] [--window S] [--batch NAMES] [--process] [--log FILE] -- BENCHMARK-ARGS...
The JMH run should be one benchmark configuration with a measurement longer than settle + window.
"""
import argparse
import os
import subprocess
import sys
import time


def snapshot(pid):
    threads = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return threads  # the process has ended
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run_ns, wait_ns, _ = (int(x) for x in f.read().split())
            vol = invol = 0
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        vol = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        invol = int(line.split()[1])
            threads[tid] = (comm, run_ns, wait_ns, vol, invol)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return threads


def jmh_score(out):
    """The score of the one JMH result line (ops/s), or None."""
    for line in out.splitlines():
        fields = line.split()
        if line.startswith(("PipelineBenchmark.", "TransportBenchmark.")) and fields[-1] == "ops/s":
            try:
                # "... thrpt [cnt] score [± error] ops/s": the score is the last number before the unit, error or not
                return float(fields[-4] if fields[-3] == "±" else fields[-2])
            except ValueError:
                return None
    return None


def java_child(proc):
    """The JMH fork: the newest java process whose parent is the JMH launcher; None when the launcher ends first."""
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        kids = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    forked = b"ForkedMain" in f.read()
                if int(fields[1]) == proc.pid and forked:
                    kids.append(int(pid))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
        if kids:
            return max(kids)
        time.sleep(0.2)
    if proc.poll() is not None:
        return None
    raise SystemExit("no JMH fork appeared within 60 s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settle", type=float, default=12.0, help="seconds from the fork's start to the first snapshot")
    ap.add_argument("--window", type=float, default=8.0, help="seconds between the snapshots")
    ap.add_argument("--batch", default="", help="thread name prefixes to switch to SCHED_BATCH")
    ap.add_argument("--process", action="store_true", help="run the arguments as a command, not as JMH arguments")
    ap.add_argument("--log", help="a file for the run's whole output")
    ap.add_argument("jmh", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.jmh[1:] if a.jmh and a.jmh[0] == "--" else a.jmh
    if not args:
        # without them JMH would run every benchmark of the jar
        ap.error("no benchmark arguments (or, with --process, no command) after --")
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
    jar = os.path.join(os.path.dirname(__file__), "..", "target", "benchmarks.jar")
    command = args if a.process else [java, "-jar", jar, *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    pid = proc.pid if a.process else java_child(proc)
    if pid is None:
        pass  # the launcher ended without a fork: nothing to sample
    elif a.batch:
        time.sleep(4)
        prefixes = a.batch.split(",")
        for tid, (comm, *_rest) in snapshot(pid).items():
            if any(comm.startswith(p) for p in prefixes):
                subprocess.run(["chrt", "-b", "-p", "0", tid], check=True)
                print(f"# SCHED_BATCH: {comm} (tid {tid})")
        time.sleep(max(0.0, a.settle - 4))
    else:
        time.sleep(a.settle)
    t0, s0 = time.monotonic_ns(), snapshot(pid) if pid else {}
    if s0:
        time.sleep(a.window)
    t1, s1 = time.monotonic_ns(), snapshot(pid) if s0 else {}
    out, _ = proc.communicate()
    if a.log:
        with open(a.log, "w") as f:
            f.write(out)
    where = f" (its output: {a.log})" if a.log else ""
    if not s0:
        print(f"schedstat.py: the run ended before the first snapshot, nothing measured{where}", file=sys.stderr)
        return proc.returncode or 1
    window = t1 - t0
    score = jmh_score(out) if not a.process else None
    print(f"# {' '.join(args)}")
    print(f"# window {window / 1e9:.2f} s, pid {pid}")
    per_op = " µs on cpu per operation |" if score else ""
    print("| thread | on cpu | runnable, waiting for a cpu | blocked | voluntary switches/s | involuntary switches/s |" + per_op)
    print("|---|---|---|---|---|---|" + ("---|" if score else ""))
    rows = []
    for tid, (comm, run1, wait1, vol1, invol1) in s1.items():
        if tid not in s0:
            continue
        _, run0, wait0, vol0, invol0 = s0[tid]
        run, wait = run1 - run0, wait1 - wait0
        if run < window * 0.01:
            continue
        rows.append((run, comm, wait, vol1 - vol0, invol1 - invol0))
    total_run = 0
    for run, comm, wait, vol, invol in sorted(rows, reverse=True):
        total_run += run
        blocked = max(0, window - run - wait)
        sec = window / 1e9
        cost = f" {run / sec / 1e3 / score:.1f} |" if score else ""
        print(f"| {comm} | {run / window:.0%} | {wait / window:.0%} | {blocked / window:.0%} | {vol / sec:,.0f} | {invol / sec:,.0f} |" + cost)
    print(f"# cores busy (these threads): {total_run / window:.2f}")
    if score:
        print(f"# on cpu per operation, these threads: {total_run / (window / 1e9) / 1e3 / score:.1f} µs"
              f" (at the iteration's score, {score:,.1f} ops/s)")
    for line in out.splitlines():
        if a.process or (line.startswith(("PipelineBenchmark", "TransportBenchmark", "Benchmark "))
                         and not line.startswith("Benchmark result is saved to")):  # -rff's closing line
            print("# " + line)
    if not a.process and proc.returncode == 0 and score is None:
        print(f"schedstat.py: the JMH run gave no score{where}", file=sys.stderr)
        return 1
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
