#!/usr/bin/env bash
# async-profiler flamegraphs (HTML) of PipelineBenchmark for each contestant at 64 KiB over tcp, level 3,
# no dictionary: CPU (perf events, or itimer where they are not allowed: the launcher says so) and heap
# allocation, into benchmark/results/flamegraphs/<contestant>/{cpu,alloc}/.../flame-*-{forward,reverse}.html
# (plus collapsed-*.csv stacks, for counting what a flamegraph is made of)
#
# Usage: benchmark/profile-pipeline.sh [SIZE]   (default 65536)
# Env:   JMH_OPTS (default "-f 1 -wi 3 -w 1s -i 5 -r 1s"), JAVA_HOME (a JDK 25)
set -euo pipefail
source "$(dirname "$0")/scripts/common.sh"
size="${1:-65536}"
opts="${JMH_OPTS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
out=benchmark/results/flamegraphs

for contestant in zmqzstd libzmqBytes jeromqZstdjni; do
  for event in cpu alloc; do
    dir="$out/$contestant/$event"
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "=== $contestant $event"
    # -XX:+DebugNonSafepoints: Java frames at their real position, not at the nearest safepoint.
    "$java" ${JAVA_OPTS:-} --sun-misc-unsafe-memory-access=allow -jar "$jar" PipelineBenchmark $opts \
      -p contestant="$contestant" -p size="$size" -p transport=tcp -p level=3 -p dictionary=none \
      -jvmArgsAppend "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints" \
      -prof "async:event=$event;output=flamegraph,collapsed;dir=$dir" 2>&1 | tee "$dir/jmh.log" \
      | grep -E '^# async-profiler|^PipelineBenchmark|ratio' || true
  done
done
find "$out" -name '*.html' | sort
