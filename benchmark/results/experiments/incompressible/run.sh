#!/usr/bin/env bash
# Raw frames for payloads that look incompressible (rawIncompressible, on by default) against compressing
# every payload (ways ending in ~), one thread (zmqzstd) and 3 workers (zmqzstd@3), with JeroMQ + zstd-jni
# as the baseline, taking turns in one JVM (PipelineOverhead, tcp, level 3, 10 rounds), on random payloads
# and on telemetry (where frames gain, so the check never looks and the two should be level).
# Usage: JVMS=3 OUT=dir [FIRST=n KINDS="random telemetry" SIZES="1024 65536"] run.sh
# (benchmark/target/benchmarks.jar built first; FIRST numbers the JVMs from n, to add to a run)
set -euo pipefail
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
jar=benchmark/target/benchmarks.jar
out="${OUT:-benchmark/results/experiments/incompressible}"
mkdir -p "$out"
for ((j = ${FIRST:-1}; j < ${FIRST:-1} + ${JVMS:-3}; j++)); do
  for kind in ${KINDS:-random telemetry}; do
    for size in ${SIZES:-1024 65536}; do
      if (( size >= 65536 )); then n=3000; elif (( size >= 16384 )); then n=10000; else n=40000; fi
      echo "=== $kind $size jvm $j"
      "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow "-Dzmqzstd.bench.payload=$kind" \
        -cp "$jar" io.zmqzstd.benchmark.PipelineOverhead tcp "$size" 3 10 "$n" \
        jeromqZstdjni zmqzstd 'zmqzstd~' zmqzstd@3 'zmqzstd@3~' > "$out/$kind-$size-j$j.txt"
    done
  done
done
