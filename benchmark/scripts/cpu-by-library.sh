#!/usr/bin/env bash
# Where each pipeline thread's CPU goes, by library, per message: zstd against everything else.
#
# Runs PipelineBenchmark (tcp, level 3, telemetry, no dictionary, SIZE bytes) once for zmqzstd through a
# ParallelCompressingSender of WORKERS workers and once for jeromqZstdjni, ROUNDS times alternating, and
# samples every thread of the benchmark JVM with `perf record -F 499` (cpu-clock) for 8 s of the
# measurement iteration: libzmq's I/O thread too, which async-profiler does not see. A sample stands
# for 1/499 s on a CPU, so a thread's samples in a library, divided by 499, by the 8 s and by the
# iteration's score, are its µs on a CPU per message in that library. Also prints the cores busy.
#
# A run that fails (a benchmark that throws, a fork that dies, a parameter JMH refuses) prints no table; it is
# named at the end (benchmark and parameters, JMH's exit status, a missing result) and the script exits 1.
#
# Needs perf (root). About 45 s per run.
# With SAMELIB=1 zmqzstd runs on the libzstd 1.5.7 that the peers bundle instead of the system's.
# Usage: [SIZE=1024] [WORKERS=3] [ROUNDS=2] [SAMELIB=1] [OUT=dir] benchmark/scripts/cpu-by-library.sh
set -euo pipefail
source "$(dirname "$0")/args.sh"
no_arguments "$@"
size=${SIZE:-1024}; workers=${WORKERS:-3}; rounds=${ROUNDS:-2}
require_count SIZE "$size"
require_count WORKERS "$workers"
require_count ROUNDS "$rounds"
[[ ${SAMELIB:-0} == [01] ]] || usage_error "SAMELIB is 1 or 0: SAMELIB=$SAMELIB"
source "$(dirname "$0")/common.sh"
out=${OUT:-$(mktemp -d)}; mkdir -p "$out"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, size=$size, tcp, level 3, telemetry; files in $out"
pipeline=(PipelineBenchmark -f 1 -wi 2 -w 3s -i 1 -r 20s -p size="$size" -p transport=tcp -p level=3 -p dictionary=none)

record() { # PID: 8 s of samples of the run named $name
  perf record -F 499 -p "$1" -o "$out/$name.perf.data" -- sleep 8 > /dev/null 2> "$out/$name.perf.txt"
}
one() { # NAME JMH-ARGS...: a run that failed prints nothing and is named at the end
  local name=$1; shift
  sample_jmh "$name" "$out/$name.jmh.txt" 13 record "${pipeline[@]}" "$@" || return 0
  local score; score=$(awk '/^PipelineBenchmark.transfer / {print $(NF-1)}' "$out/$name.jmh.txt")
  perf script -i "$out/$name.perf.data" -F comm,ip,dso 2> /dev/null | gzip > "$out/$name.samples.gz"
  rm -f "$out/$name.perf.data"
  gzip -dc "$out/$name.samples.gz" \
    | python3 "$root/benchmark/scripts/cpu-by-library.py" --name "$name" --score "$score" --freq 499 --seconds 8
}

samelib=()
if [[ "${SAMELIB:-0}" == 1 ]]; then
  lib=$(mktemp -d); trap 'rm -rf "$lib"' EXIT
  samelib=(-jvmArgsAppend "-Dzmqzstd.libzstd.path=$(bundled_libzstd "$lib")/libzstd.so.1")
fi
for ((r = 1; r <= rounds; r++)); do
  one "zmqzstd@$workers-$size-r$r" -p contestant=zmqzstd -p compressionThreads="$workers" "${samelib[@]}"
  one "jeromqZstdjni-$size-r$r" -p contestant=jeromqZstdjni
done
exit_on_failures "(their tables are missing above)"
