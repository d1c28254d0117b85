#!/usr/bin/env bash
# Where the CPU time of one pipeline message goes, at SIZE (default 64 KiB) over tcp, level 3,
# telemetry: what the issue's 2x target leaves per message on this machine, and what each part
# costs.
#
# 1. The codec alone (CodecBenchmark, zmqzstd-segment): compression on one thread and on two at
#    once (does a second core add a second core's worth?), decompression on one.
# 2. The pipeline (PipelineBenchmark): zmqzstd through a ParallelCompressingSender of WORKERS
#    workers and jeromqZstdjni, each under schedstat.py: every thread's time on a CPU per message.
# 3. libzmq's I/O thread during the zmqzstd run: its calls per message (perf stat tracepoints) and
#    its user and kernel time (/proc/PID/task/TID/stat).
#
# A run that fails (a benchmark that throws, a fork that dies, a parameter JMH refuses) prints no line of its
# own; it is named at the end (benchmark and parameters, JMH's exit status, a missing result), its log kept,
# and the script exits 1.
#
# Needs perf with tracepoints (root). About 4 minutes.
# Usage: [SIZE=65536] [WORKERS=3] benchmark/scripts/cpu-budget.sh
set -euo pipefail
source "$(dirname "$0")/args.sh"
no_arguments "$@"
size=${SIZE:-65536}; workers=${WORKERS:-3}
require_count SIZE "$size"
require_count WORKERS "$workers"
source "$(dirname "$0")/common.sh"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, size=$size, tcp, level 3, telemetry"

work=$(mktemp -d)
trap '(( ${#failures[@]} )) || rm -rf "$work"' EXIT # kept when something failed: its logs are named

codec=(-p contestant=zmqzstd-segment -p size="$size" -p level=3 -p payload=telemetry -f 1 -wi 2 -w 1s -i 5 -r 1s)
for what in "compress -t 1" "compress -t 2" "decompress -t 1"; do
  read -r method threads <<< "${what/ -t / }"
  log=$work/codec-$method-$threads.log status=0
  "$java" -jar "$jar" "CodecBenchmark.$method" "${codec[@]}" -t "$threads" -rf json -rff "${log%.log}.json" > "$log" 2>&1 \
    || status=$?
  jmh_check "codec $method, $threads thread(s)" "$status" "${log%.log}.json" "$log" || continue
  awk -v m="$method" -v t="$threads" '/^CodecBenchmark/ {printf "codec %s, %d thread(s): %s ops/s (± %s)\n", m, t, $(NF-3), $(NF-1)}' "$log"
done

pipeline=(PipelineBenchmark -f 1 -wi 2 -w 3s -i 1 -r 20s -p size="$size" -p transport=tcp -p level=3 -p dictionary=none)
threads() { # FILE JMH-ARGS...: schedstat.py's table of one pipeline run (its output in $work/FILE.log)
  local log=$work/$1.log status=0
  shift
  python3 benchmark/scripts/schedstat.py --settle 9 --window 8 --log "$log" -- "${pipeline[@]}" "$@" \
    -rf json -rff "${log%.log}.json" || status=$?
  jmh_check "pipeline $*" "$status" "${log%.log}.json" "$log" || true
}
threads zmqzstd -p contestant=zmqzstd -p compressionThreads="$workers"
threads jeromqZstdjni -p contestant=jeromqZstdjni

# The I/O thread: one more zmqzstd run, sampled from outside.
io_thread() { # PID
  tid=$(grep -l 'ZMQbg/IO/0' /proc/"$1"/task/*/comm | head -1 | cut -d/ -f5)
  ticks() { awk '{sub(/^.*\) /, ""); print $12, $13}' "/proc/$1/task/$tid/stat"; }
  read -r u0 s0 <<< "$(ticks "$1")"
  perf stat -x, -t "$tid" -e task-clock,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_wait \
    -- sleep 6 2> "$work/perf.txt"
  read -r u1 s1 <<< "$(ticks "$1")"
}
if sample_jmh "I/O thread, pipeline zmqzstd@$workers" "$work/io.log" 14 io_thread "${pipeline[@]}" -p contestant=zmqzstd \
    -p compressionThreads="$workers"; then
  score=$(awk '/^PipelineBenchmark.transfer/ {print $(NF-1)}' "$work/io.log")
  echo "# I/O thread ZMQbg/IO/0 over 6 s of a zmqzstd@$workers run at $score msg/s (that run's score):"
  awk -F, -v score="$score" '{n = $1; ev = $3; if (ev == "task-clock") printf "  on cpu %.1f µs per message\n", n * 1e3 / (score * 6); else printf "  %s %.2f per message\n", ev, n / (score * 6)}' "$work/perf.txt"
  echo "  user / kernel time: $((u1 - u0)) / $((s1 - s0)) clock ticks"
fi
exit_on_failures "(their lines are missing above; logs in $work)"
