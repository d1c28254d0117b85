#!/usr/bin/env bash
# The send path before and after claim/commit (take() split into awaitRoom/tryInline/publish): the build
# of e0b82bb (/tmp/old-benchmarks.jar) and of 6b1784f (/tmp/new-benchmarks.jar) in alternating JVMs,
# each running zmqzstd@3 (send) and jeromqZstdjni taking turns (PipelineOverhead, tcp, level 3, 20 rounds).
# Rerun 2026-11-25 with /tmp/new-benchmarks.jar built at da84678: JVMS=8 SIZES=1024 OUT=<this dir>/at-da84678.
# Review 2026-11-25: old = 637cd7c, new = the topic copied in publish(): JVMS=4 SIZES=1024 OUT=<this dir>/publish-topic.
# Usage: JVMS=3 SIZES="1024 65536" OUT=dir [FIRST=n: number the JVMs from n, to add to a run] run.sh
set -euo pipefail
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out="${OUT:-benchmark/results/experiments/claim/send-path}"
for ((j = ${FIRST:-1}; j < ${FIRST:-1} + ${JVMS:-3}; j++)); do
  for size in ${SIZES:-1024 65536}; do
    if (( size >= 65536 )); then n=3000; else n=40000; fi
    for v in old new; do
      echo "=== $v $size jvm $j"
      "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "/tmp/$v-benchmarks.jar" \
        io.zmqzstd.benchmark.PipelineOverhead tcp "$size" 3 20 "$n" jeromqZstdjni zmqzstd@3 > "$out/$v-$size-j$j.txt"
    done
  done
done
for size in ${SIZES:-1024 65536}; do
  for v in old new; do
    printf '%-4s %6s  zmqzstd@3 msg/s, x JeroMQ:' "$v" "$size"
    grep -h '^zmqzstd@3 .*msgs_per_s' $(ls "$out/$v-$size-"j*.txt | sort -V) | sed 's/.*msgs_per_s=\([0-9]*\) x_jeromqZstdjni=\([0-9.]*\).*/ \1 \2x/' | tr '\n' ' '; echo
  done
done | tee "$out/summary.txt"
