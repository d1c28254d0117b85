#!/usr/bin/env bash
# The focused benchmark set behind BENCHMARKS.md: one JMH invocation per table, each with -prof gc and a
# JSON result in benchmark/results/<name>.json (log in <name>.log), then the charts
# (benchmark/results/charts/, SVG + summary.md) and the compression ratios (pipeline-ratios.txt).
# About 65 minutes on a 2-core VM; run it on a quiet machine.
#
# Usage: benchmark/run-all.sh [TABLE...]   tables: codec codec-64m codec-samelib codec-samelib-64m codec-level1
#        codec-binary transport transport-inproc transport-receive pipeline pipeline-trained pipeline-level1 pipeline-samelib pipeline-flow switchover-transport
#        switchover-pipeline raw-frames latency (default: all, in that order; charts are always re-rendered from every JSON present)
# Env:   JMH_OPTS   iteration settings (default "-f 1 -wi 3 -w 2s -i 4 -r 1s"; codec tables use 500 ms, 64 MiB 4 s,
#                   latency 5 iterations of 4 s)
#        JMH_EXTRA  appended after each table's selection (JMH merges repeated -p values of one parameter,
#                   so it adds options rather than narrowing a table), e.g. for a smoke run:
#                   JMH_OPTS="-f 1 -wi 0 -i 1 -r 200ms" JMH_EXTRA="-jvmArgsAppend -Xmx1g" OUT=/tmp/smoke benchmark/run-all.sh)
#        OUT        results directory (default benchmark/results)
#        JAVA_OPTS  options for the launching JVM (e.g. -Djmh.ignoreLock=true)
#        JAVA_HOME  a JDK 25 (default /usr/lib/jvm/temurin-25-jdk-amd64 when it exists)
set -euo pipefail
source "$(dirname "$0")/scripts/common.sh"
out="${OUT:-benchmark/results}"
opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 4 -r 1s}"
codec_opts="${JMH_OPTS:--f 1 -wi 3 -w 500ms -i 5 -r 500ms}"
large_opts="${JMH_OPTS:--f 1 -wi 2 -w 4s -i 5 -r 4s}"
mkdir -p "$out/charts"
# zstd-jni and aircompressor bundle libzstd 1.5.7; the system's may be older (Debian 12: 1.5.4). The
# *-samelib tables run zmq-zstd on the very library aircompressor ships (inside the jar), in one
# invocation with the native peers (which load their bundled copy whatever the property says), so that
# the bindings are compared alone.
samelib() { # the JMH options that point zmq-zstd at the bundled libzstd (extracted first)
  echo -jvmArgsAppend "-Dzmqzstd.libzstd.path=$(bundled_libzstd "$out/libzstd-bundled")/libzstd.so"
}

ALWAYS_COPY=1099511627776   # 1 TiB: no frame reaches it, every frame is copied

# name, JMH options and selection; one JMH invocation, JSON and log under benchmark/results/
bench() {
  local name="$1"; shift
  echo "=== $name: $*"
  # shellcheck disable=SC2086 # JMH_EXTRA is a list of options
  "$java" ${JAVA_OPTS:-} --sun-misc-unsafe-memory-access=allow -jar "$jar" "$@" ${JMH_EXTRA:-} -prof gc -rf json -rff "$out/$name.json" \
    2>&1 | tee "$out/$name.log"
}

table() {
  case "$1" in
    codec) bench codec CodecBenchmark $codec_opts \
        -p size=64,1024,65536,1048576 -p level=3 -p payload=telemetry ;;
    codec-64m) # one 64 MiB operation takes 40-200 ms: long iterations, or an iteration holds a handful
      bench codec-64m CodecBenchmark $large_opts -p size=67108864 -p level=3 -p payload=telemetry ;;
    codec-samelib)
      # shellcheck disable=SC2046 # samelib prints two options
      bench codec-samelib CodecBenchmark $codec_opts \
        -p contestant=zmqzstd-segment,zmqzstd-bytes,zstdjni-direct,aircompressor-native \
        -p size=64,1024,65536,1048576 -p level=3 -p payload=telemetry $(samelib) ;;
    codec-samelib-64m)
      # shellcheck disable=SC2046
      bench codec-samelib-64m CodecBenchmark $large_opts \
        -p contestant=zmqzstd-segment,zmqzstd-bytes,zstdjni-direct,aircompressor-native \
        -p size=67108864 -p level=3 -p payload=telemetry $(samelib) ;;
    codec-level1) bench codec-level1 CodecBenchmark $codec_opts \
        -p size=1024,1048576 -p level=1 -p payload=telemetry ;;
    codec-binary) bench codec-binary CodecBenchmark $codec_opts \
        -p size=1024,1048576 -p level=3 -p payload=binary ;;
    transport) bench transport TransportBenchmark $opts \
        -p receiveMode=blocking -p transport=tcp ;;
    transport-inproc) bench transport-inproc TransportBenchmark $opts \
        -p receiveMode=blocking -p transport=inproc -p size=64,512,1024,65536,262144 ;;
    transport-receive) bench transport-receive TransportBenchmark $opts \
        -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking,blockingBatch,nonBlocking,poller \
        -p size=64,65536 -p transport=tcp ;;
    pipeline) bench pipeline PipelineBenchmark $opts \
        -p level=3 -p dictionary=none -p affinity=none,split ;;
    pipeline-trained) bench pipeline-trained PipelineBenchmark $opts \
        -p size=64,1024 -p level=3 -p dictionary=trained -p affinity=none,split ;;
    pipeline-level1) bench pipeline-level1 PipelineBenchmark $opts \
        -p size=1024,65536 -p transport=tcp -p level=1 -p dictionary=none -p affinity=none,split ;;
    pipeline-samelib)
      # every contestant compresses with the same library (benchmark/c/run.sh runs the C ceiling on it too)
      # shellcheck disable=SC2046
      bench pipeline-samelib PipelineBenchmark $opts -p size=1024,65536,1048576 -p transport=tcp -p level=3 \
        -p dictionary=none -p affinity=none $(samelib) ;;
    pipeline-flow) bench pipeline-flow PipelineBenchmark $opts \
        -p size=64,1024 -p transport=tcp -p level=3 -p dictionary=none -p flow=stream,batch ;;
    switchover-transport) bench switchover-transport TransportBenchmark $opts \
        -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=512,2048,8192,32768,131072 \
        -p "zeroCopyThresholdBytes=0,$ALWAYS_COPY" ;;
    switchover-pipeline) bench switchover-pipeline PipelineBenchmark $opts \
        -p contestant=zmqzstd -p size=4096,16384,65536 -p level=3 -p dictionary=none \
        -p "zeroCopyThresholdBytes=0,$ALWAYS_COPY" ;;
    latency) bench latency LatencyBenchmark ${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 4s} ;;
    raw-frames) bench raw-frames PipelineBenchmark $opts \
        -p contestant=zmqzstd -p size=64,128,256 -p transport=tcp -p level=3 -p dictionary=none \
        -p rawFrameBelowBytes=0,1024 ;;
    *) echo "unknown table: $1" >&2; exit 2 ;;
  esac
}

tables=("$@")
if [[ ${#tables[@]} -eq 0 ]]; then
  tables=(codec codec-64m codec-samelib codec-samelib-64m codec-level1 codec-binary transport transport-inproc transport-receive pipeline pipeline-trained
          pipeline-level1 pipeline-samelib pipeline-flow switchover-transport switchover-pipeline raw-frames latency)
fi
start=$SECONDS
for t in "${tables[@]}"; do
  table "$t"
done

# Compression ratios (printed once per trial by PipelineBenchmark, inside JMH's first warm-up line).
grep -ho 'compression ratio: .*' "$out"/pipeline*.log "$out"/raw-frames.log "$out"/switchover-pipeline.log \
  2>/dev/null | sort -u > "$out/pipeline-ratios.txt" || true

"$java" -cp "$jar" io.zmqzstd.benchmark.charts.ChartTool "$out"/*.json "$out/charts/"
echo "done in $(( (SECONDS - start) / 60 )) min: $out/*.json, $out/charts/, $out/pipeline-ratios.txt"
