#!/usr/bin/env bash
# async-profiler flamegraphs (HTML) of PipelineBenchmark for each contestant at 64 KiB over tcp, level 3,
# no dictionary: CPU (perf events, or itimer where they are not allowed: the launcher says so) and heap
# allocation, into benchmark/results/flamegraphs/<contestant>/{cpu,alloc}/.../flame-*-{forward,reverse}.html
# (plus collapsed-*.csv stacks, for counting what a flamegraph is made of)
#
# Usage: benchmark/profile-pipeline.sh [SIZE]   SIZE: the payload in bytes, at least 8 (default 65536); replaces
#        the flamegraphs of each contestant under benchmark/results/flamegraphs/ as its runs begin
# Env:   JMH_OPTS (default "-f 1 -wi 3 -w 1s -i 5 -r 1s"), JAVA_OPTS (options for the launching JVM),
#        JAVA_HOME (a JDK 25)
set -euo pipefail
source "$(dirname "$0")/scripts/args.sh"
handle_help "$@"
(( $# <= 1 )) || usage_error "one SIZE at most: $*"
size="${1:-65536}"
# every message carries its 8-byte sequence stamp
[[ $size =~ ^[1-9][0-9]*$ ]] && (( size >= 8 )) || usage_error "SIZE must be a whole number of bytes, at least 8: SIZE=$size"
source "$(dirname "$0")/scripts/common.sh"
opts="${JMH_OPTS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
out=benchmark/results/flamegraphs

for contestant in zmqzstd libzmqBytes jeromqZstdjni; do
  for event in cpu alloc; do
    dir="$out/$contestant/$event"
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "=== $contestant $event"
    # -XX:+DebugNonSafepoints: Java frames at their real position, not at the nearest safepoint. -foe true: a
    # trial that fails stops the script (JMH would exit 0 and leave the directory without flamegraphs).
    # shellcheck disable=SC2086 # JAVA_OPTS and JMH_OPTS are lists of options
    "$java" ${JAVA_OPTS:-} --sun-misc-unsafe-memory-access=allow -jar "$jar" PipelineBenchmark $opts -foe true \
      -p contestant="$contestant" -p size="$size" -p transport=tcp -p level=3 -p dictionary=none \
      -jvmArgsAppend "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints" \
      -prof "async:event=$event;output=flamegraph,collapsed;dir=$dir" 2>&1 | tee "$dir/jmh.log" \
      | { grep -E '^# async-profiler|^PipelineBenchmark|ratio' || true; } \
      || { tail -30 "$dir/jmh.log" >&2; exit 1; } # a failed run; grep finding no line is none
  done
done
find "$out" -name '*.html' | sort
