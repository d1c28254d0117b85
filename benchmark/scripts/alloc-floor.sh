#!/usr/bin/env bash
# What -prof gc's bytes per message are made of: the control (AllocationFloorBenchmark: operations that
# allocate nothing, so all it shows is JMH's own allocation per iteration), then the pipeline over tcp for
# every contestant with run-all.sh's settings (1 s iterations), zmqzstd at 64 KiB and 1 MiB with 10 s
# iterations, the transport's large cells and the codec's 1 MiB and 64 MiB cells (run-all.sh's settings).
# scripts/alloc-floor.py prints each cell's bytes per iteration, and per message after the control's
# bytes per iteration are taken away. About 11 minutes. A cell whose trial failed (or gave no result) is
# named at the end, and the script exits 1.
# Usage: benchmark/scripts/alloc-floor.sh [OUT]   (default OUT: benchmark/results/experiments/alloc-floor)
set -euo pipefail
source "$(dirname "$0")/args.sh"
handle_help "$@"
(( $# <= 1 )) || usage_error "one OUT directory at most: $*"
source "$(dirname "$0")/common.sh"
out="${1:-benchmark/results/experiments/alloc-floor}"
mkdir -p "$out"
run() { # NAME JMH-ARGS...: a failed trial is listed (jmh_check) and the next cell runs
  local name="$1"; shift
  echo "# $(date -u +%FT%TZ) $name: java -jar $jar $*" | tee "$out/$name.log"
  rm -f "$out/$name.json"
  local status=0
  "$java" -jar "$jar" "$@" -prof gc -rf json -rff "$out/$name.json" >> "$out/$name.log" 2>&1 || status=$?
  jmh_check "$name" "$status" "$out/$name.json" "$out/$name.log" || true
}
run floor-1s AllocationFloorBenchmark -f 1 -wi 2 -w 2s -i 4 -r 1s
run floor-10s AllocationFloorBenchmark -f 1 -wi 2 -w 2s -i 3 -r 10s
run pipeline-1s PipelineBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s -p contestant=zmqzstd,libzmqBytes,jeromqZstdjni \
  -p size=64,1024,65536,1048576 -p transport=tcp -p level=3 -p dictionary=none
run pipeline-10s PipelineBenchmark -f 1 -wi 3 -w 2s -i 3 -r 10s -p contestant=zmqzstd \
  -p size=65536,1048576 -p transport=tcp -p level=3 -p dictionary=none
run transport TransportBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s -p strategy=byteArray,zeroCopyPooled \
  -p receiveMode=blocking -p size=65536,262144 -p transport=tcp,inproc
run codec CodecBenchmark -f 1 -wi 3 -w 500ms -i 5 -r 500ms -p contestant=zmqzstd-segment,zstdjni-direct,aircompressor-native \
  -p size=1048576 -p level=3 -p payload=telemetry
run codec-64m CodecBenchmark -f 1 -wi 2 -w 4s -i 5 -r 4s -p contestant=zmqzstd-segment,zstdjni-direct,aircompressor-native \
  -p size=67108864 -p level=3 -p payload=telemetry
python3 benchmark/scripts/alloc-floor.py "$out" | tee "$out/summary.md" || failures+=("summary: alloc-floor.py failed")
exit_on_failures "(their cells are missing from the summary)"
