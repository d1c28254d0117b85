#!/bin/bash
# JeroMQ + zstd-jni and zmqzstd@3 in PipelineOverhead, each in a JVM of its own and the two sharing one
# JVM (as benchmark/interleaved.sh runs them), the three configurations alternating, RUNS times per size
# (SIZES: default 1024 65536; the message counts per turn are interleaved.sh's).
# Run from the repository root after ./mvnw install; OUT is where the files go, JVM_ARGS added to each JVM's
# command line (e.g. -Dzmqzstd.libzstd.path=… for zmq-zstd on the libzstd that zstd-jni bundles).
set -euo pipefail
J="${JAVA_HOME:?}/bin/java ${JVM_ARGS:-} --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp benchmark/target/benchmarks.jar io.zmqzstd.benchmark.PipelineOverhead"
out="${OUT:-benchmark/results/experiments/pipeline-own-jvm}"
for size in ${SIZES:-1024 65536}; do
  if (( size >= 1048576 )); then n=150; elif (( size >= 65536 )); then n=3000; elif (( size >= 1024 )); then n=40000; else n=100000; fi
  for ((r = 1; r <= ${RUNS:-4}; r++)); do
    $J tcp $size 3 20 $n jeromqZstdjni > "$out/alone-jeromqZstdjni-$size-r$r.txt"
    $J tcp $size 3 20 $n zmqzstd@3 > "$out/alone-zmqzstd3-$size-r$r.txt"
    $J tcp $size 3 20 $n jeromqZstdjni zmqzstd@3 > "$out/shared-$size-r$r.txt"
  done
done
