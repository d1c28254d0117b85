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

codec=(-p contestant=zmqzstd-segment -p size="$size" -p level=3 -p payload=telemetry -f 1 -wi 2 -w 1s -i 5 -r 1s)
for what in "compress -t 1" "compress -t 2" "decompress -t 1"; do
  read -r method threads <<< "${what/ -t / }"
  "$java" -jar "$jar" "CodecBenchmark.$method" "${codec[@]}" -t "$threads" 2>&1 \
    | awk -v m="$method" -v t="$threads" '/^CodecBenchmark/ {printf "codec %s, %d thread(s): %s ops/s (± %s)\n", m, t, $(NF-3), $(NF-1)}'
done

pipeline=(PipelineBenchmark -f 1 -wi 2 -w 3s -i 1 -r 20s -p size="$size" -p transport=tcp -p level=3 -p dictionary=none)
python3 benchmark/scripts/schedstat.py --settle 9 --window 8 -- "${pipeline[@]}" -p contestant=zmqzstd \
  -p compressionThreads="$workers"
python3 benchmark/scripts/schedstat.py --settle 9 --window 8 -- "${pipeline[@]}" -p contestant=jeromqZstdjni

# The I/O thread: one more zmqzstd run, sampled from outside.
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$java" -jar "$jar" "${pipeline[@]}" -p contestant=zmqzstd -p compressionThreads="$workers" > "$out" 2>&1 &
launcher=$!
sleep 14
pid=$(fork_of "$launcher")
tid=$(grep -l 'ZMQbg/IO/0' /proc/"$pid"/task/*/comm | head -1 | cut -d/ -f5)
ticks() { awk '{sub(/^.*\) /, ""); print $12, $13}' "/proc/$pid/task/$tid/stat"; }
read -r u0 s0 <<< "$(ticks)"
perf stat -x, -t "$tid" -e task-clock,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_wait \
  -- sleep 6 2> "$out.perf"
read -r u1 s1 <<< "$(ticks)"
wait "$launcher"
score=$(awk '/^PipelineBenchmark.transfer/ {print $(NF-1)}' "$out")
echo "# I/O thread ZMQbg/IO/0 over 6 s of a zmqzstd@$workers run at $score msg/s (that run's score):"
awk -F, -v score="$score" '{n = $1; ev = $3; if (ev == "task-clock") printf "  on cpu %.1f µs per message\n", n * 1e3 / (score * 6); else printf "  %s %.2f per message\n", ev, n / (score * 6)}' "$out.perf"
echo "  user / kernel time: $((u1 - u0)) / $((s1 - s0)) clock ticks"
rm -f "$out.perf"
