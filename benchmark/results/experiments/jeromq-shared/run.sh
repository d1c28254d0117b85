#!/usr/bin/env bash
# JeroMQ + zstd-jni's rate at 1 KiB over tcp alone in a JVM and beside each other contestant in turn:
# which neighbour slows it. JVMS rounds of the configurations, alternating; each JVM runs PipelineOverhead.
# Usage: JVMS=3 OUT=dir benchmark/results/experiments/jeromq-shared/run.sh   (from the repository root)
set -euo pipefail
source "$(dirname "$0")/../../../scripts/common.sh"
out="${OUT:-benchmark/results/experiments/jeromq-shared}"
size="${SIZE:-1024}"
configs=("jeromqZstdjni" "jeromqZstdjni zmqzstd@3" "jeromqZstdjni zmqzstd" "jeromqZstdjni libzmqBytes")
for ((j = 1; j <= ${JVMS:-3}; j++)); do
  for c in "${configs[@]}"; do
    name="${c// /+}"
    echo "=== $name jvm $j"
    # shellcheck disable=SC2086
    "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" \
      io.zmqzstd.benchmark.PipelineOverhead tcp "$size" 3 20 40000 $c > "$out/$name-$size-j$j.txt"
  done
done
for c in "${configs[@]}"; do
  name="${c// /+}"
  printf '%-28s' "$name"; grep -h '^jeromqZstdjni ' "$out/$name-$size-"j*.txt | sed 's/.*msgs_per_s=//' | tr '\n' ' '; echo
done | tee "$out/summary-$size.txt"
