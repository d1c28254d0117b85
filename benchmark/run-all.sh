#!/usr/bin/env bash
# The focused benchmark set behind BENCHMARKS.md: one JMH invocation per table, each with -prof gc and a
# JSON result in benchmark/results/<name>.json (log in <name>.log), then the charts
# (benchmark/results/charts/, SVG + summary.md) and the compression ratios (pipeline-ratios.txt).
# About 65 minutes on a 2-core VM; run it on a quiet machine.
#
# Usage: benchmark/run-all.sh [TABLE...]   (default: every table, in the order below; the charts are always
#        re-rendered from every JSON present). Each table is one JMH invocation:
#        codec                 CodecBenchmark, every contestant, 64 B to 1 MiB, level 3, telemetry
#        codec-64m             the same at 64 MiB (iterations of 4 s)
#        codec-samelib         zmq-zstd's two contestants, zstdjni-direct and aircompressor-native, 64 B to 1 MiB,
#                              zmq-zstd on the libzstd 1.5.7 that the peers bundle
#        codec-samelib-64m     the same at 64 MiB
#        codec-level1          every codec contestant at 1 KiB and 1 MiB, level 1
#        codec-binary          every codec contestant at 1 KiB and 1 MiB, the binary payload
#        transport             TransportBenchmark, every strategy and size, tcp, blocking receive
#        transport-inproc      the same over inproc, 64 B to 256 KiB
#        transport-receive     byteArray and zeroCopyPooled in every receive mode, 64 B and 64 KiB, tcp
#        pipeline              PipelineBenchmark, every contestant, size and transport, level 3, affinity none and split
#        pipeline-trained      the same at 64 B and 1 KiB with the trained dictionary
#        pipeline-level1       1 KiB and 64 KiB over tcp at level 1, affinity none and split
#        pipeline-samelib      1 KiB to 1 MiB over tcp, zmq-zstd on the libzstd 1.5.7 that the peers bundle
#        pipeline-flow         64 B and 1 KiB over tcp, flow stream and batch
#        switchover-transport  zeroCopyPooled with every frame zero-copy and every frame copied, 512 B to 128 KiB
#        switchover-pipeline   zmqzstd with every frame zero-copy and every frame copied, 4 KiB to 64 KiB
#        raw-frames            zmqzstd at 64 B to 256 B over tcp, compressed frames and raw-block frames below 1 KiB
#        latency               LatencyBenchmark, every contestant, size and transport (iterations of 4 s)
#        A trial that fails does not stop its table or the next ones; the script ends with status 1 and names each
#        failed trial (benchmark and parameters), each JMH that exited non-zero and each table without results.
# Env:   JMH_OPTS   iteration settings (default "-f 1 -wi 3 -w 2s -i 4 -r 1s"; codec tables use 500 ms, 64 MiB 4 s,
#                   latency 5 iterations of 4 s)
#        JMH_EXTRA  appended after each table's selection (JMH merges repeated -p values of one parameter,
#                   so it adds options rather than narrowing a table), e.g. for a smoke run:
#                   JMH_OPTS="-f 1 -wi 0 -i 1 -r 200ms" JMH_EXTRA="-jvmArgsAppend -Xmx1g" OUT=/tmp/smoke benchmark/run-all.sh)
#        OUT        results directory (default benchmark/results)
#        JAVA_OPTS  options for the launching JVM (e.g. -Djmh.ignoreLock=true)
#        JAVA_HOME  a JDK 25 (default /usr/lib/jvm/temurin-25-jdk-amd64 when it exists)
set -euo pipefail
source "$(dirname "$0")/scripts/args.sh"
handle_help "$@"
opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 4 -r 1s}"
codec_opts="${JMH_OPTS:--f 1 -wi 3 -w 500ms -i 5 -r 500ms}"
large_opts="${JMH_OPTS:--f 1 -wi 2 -w 4s -i 5 -r 4s}"
samelib=() # the JMH options that point zmq-zstd at the bundled libzstd, once extracted (below)

ALWAYS_COPY=1099511627776   # 1 TiB: no frame reaches it, every frame is copied

# table_args TABLE: the table's JMH selection and options in args; returns 1 for a name that is no table.
# Starts nothing, so that every name given is checked before the first table runs.
table_args() {
  # shellcheck disable=SC2206 # the option strings are lists of options
  case "$1" in
    codec) args=(CodecBenchmark $codec_opts \
        -p size=64,1024,65536,1048576 -p level=3 -p payload=telemetry) ;;
    codec-64m) # one 64 MiB operation takes 40-200 ms: long iterations, or an iteration holds a handful
      args=(CodecBenchmark $large_opts -p size=67108864 -p level=3 -p payload=telemetry) ;;
    codec-samelib)
      args=(CodecBenchmark $codec_opts \
        -p contestant=zmqzstd-segment,zmqzstd-bytes,zstdjni-direct,aircompressor-native \
        -p size=64,1024,65536,1048576 -p level=3 -p payload=telemetry "${samelib[@]}") ;;
    codec-samelib-64m)
      args=(CodecBenchmark $large_opts \
        -p contestant=zmqzstd-segment,zmqzstd-bytes,zstdjni-direct,aircompressor-native \
        -p size=67108864 -p level=3 -p payload=telemetry "${samelib[@]}") ;;
    codec-level1) args=(CodecBenchmark $codec_opts \
        -p size=1024,1048576 -p level=1 -p payload=telemetry) ;;
    codec-binary) args=(CodecBenchmark $codec_opts \
        -p size=1024,1048576 -p level=3 -p payload=binary) ;;
    transport) args=(TransportBenchmark $opts \
        -p receiveMode=blocking -p transport=tcp) ;;
    transport-inproc) args=(TransportBenchmark $opts \
        -p receiveMode=blocking -p transport=inproc -p size=64,512,1024,65536,262144) ;;
    transport-receive) args=(TransportBenchmark $opts \
        -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking,blockingBatch,nonBlocking,poller \
        -p size=64,65536 -p transport=tcp) ;;
    pipeline) args=(PipelineBenchmark $opts \
        -p level=3 -p dictionary=none -p affinity=none,split) ;;
    pipeline-trained) args=(PipelineBenchmark $opts \
        -p size=64,1024 -p level=3 -p dictionary=trained -p affinity=none,split) ;;
    pipeline-level1) args=(PipelineBenchmark $opts \
        -p size=1024,65536 -p transport=tcp -p level=1 -p dictionary=none -p affinity=none,split) ;;
    pipeline-samelib)
      # every contestant compresses with the same library (benchmark/c/run.sh runs the C ceiling on it too)
      args=(PipelineBenchmark $opts -p size=1024,65536,1048576 -p transport=tcp -p level=3 \
        -p dictionary=none -p affinity=none "${samelib[@]}") ;;
    pipeline-flow) args=(PipelineBenchmark $opts \
        -p size=64,1024 -p transport=tcp -p level=3 -p dictionary=none -p flow=stream,batch) ;;
    switchover-transport) args=(TransportBenchmark $opts \
        -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=512,2048,8192,32768,131072 \
        -p "zeroCopyThresholdBytes=0,$ALWAYS_COPY") ;;
    switchover-pipeline) args=(PipelineBenchmark $opts \
        -p contestant=zmqzstd -p size=4096,16384,65536 -p level=3 -p dictionary=none \
        -p "zeroCopyThresholdBytes=0,$ALWAYS_COPY") ;;
    latency) args=(LatencyBenchmark ${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 4s}) ;;
    raw-frames) args=(PipelineBenchmark $opts \
        -p contestant=zmqzstd -p size=64,128,256 -p transport=tcp -p level=3 -p dictionary=none \
        -p rawFrameBelowBytes=0,1024) ;;
    *) return 1 ;;
  esac
}

tables=("$@")
if [[ ${#tables[@]} -eq 0 ]]; then
  tables=(codec codec-64m codec-samelib codec-samelib-64m codec-level1 codec-binary transport transport-inproc transport-receive pipeline pipeline-trained
          pipeline-level1 pipeline-samelib pipeline-flow switchover-transport switchover-pipeline raw-frames latency)
fi
for t in "${tables[@]}"; do
  table_args "$t" || usage_error "unknown table: $t"
done

source "$(dirname "$0")/scripts/common.sh"
out="${OUT:-benchmark/results}"
mkdir -p "$out/charts"
# zstd-jni and aircompressor bundle libzstd 1.5.7; the system's may be older (Debian 12: 1.5.4). The
# *-samelib tables run zmq-zstd on the very library aircompressor ships (inside the jar), in one
# invocation with the native peers (which load their bundled copy whatever the property says), so that
# the bindings are compared alone.
samelib_options "$out/libzstd-bundled" "${tables[@]}"

# one JMH invocation per table, JSON and log under $out. Without -foe JMH reports a trial that threw (a
# contestant's failed check, a refused parameter) as "<failure>" in its output, goes on with the table's other
# trials and exits 0, the failed trial missing from the JSON; with -foe it would also drop the table's other
# trials. So each table runs whole, and what failed is collected here (failures, jmh_check) and fails the script
# at the end.
start=$SECONDS
for t in "${tables[@]}"; do
  table_args "$t"
  echo "=== $t: ${args[*]}"
  rm -f "$out/$t.json" # a result of an earlier run must not stand in for this one
  status=0
  # shellcheck disable=SC2086 # JAVA_OPTS and JMH_EXTRA are lists of options
  "$java" ${JAVA_OPTS:-} --sun-misc-unsafe-memory-access=allow -jar "$jar" "${args[@]}" ${JMH_EXTRA:-} -prof gc -rf json \
    -rff "$out/$t.json" 2>&1 | tee "$out/$t.log" || status=$?
  jmh_check "$t" "$status" "$out/$t.json" "$out/$t.log" || true
done

# Compression ratios (printed once per trial by PipelineBenchmark, inside JMH's first warm-up line).
grep -ho 'compression ratio: .*' "$out"/pipeline*.log "$out"/raw-frames.log "$out"/switchover-pipeline.log \
  2>/dev/null | sort -u > "$out/pipeline-ratios.txt" || true

"$java" -cp "$jar" io.zmqzstd.benchmark.charts.ChartTool "$out"/*.json "$out/charts/" || failures+=("charts: ChartTool failed")
echo "done in $(( (SECONDS - start) / 60 )) min: $out/*.json, $out/charts/, $out/pipeline-ratios.txt"
exit_on_failures "(their results are missing from the JSON and the charts)"
