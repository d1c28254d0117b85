#!/usr/bin/env bash
# The send path before and after claim/commit (take() split into awaitRoom/tryInline/publish): the build
# of e0b82bb (/tmp/old-benchmarks.jar) and of 6b1784f (/tmp/new-benchmarks.jar) in alternating JVMs,
# each running zmqzstd@3 (send) and jeromqZstdjni taking turns (PipelineOverhead, tcp, level 3, 20 rounds).
# Rerun 2026-11-25 with /tmp/new-benchmarks.jar built at da84678: JVMS=8 SIZES=1024 OUT=<this dir>/at-da84678.
# Review 2026-11-25: old = 637cd7c, new = the topic copied in publish(): JVMS=4 SIZES=1024 OUT=<this dir>/publish-topic.
# Usage: JVMS=3 SIZES="1024 65536" OUT=dir [FIRST=n: number the JVMs from n, to add to a run] run.sh
# (JVMS=0 runs nothing and rewrites summary.txt from the files in OUT.) The ratio per JVM in summary.txt is the
# median of its per-round ratios; until 2026-11-28 it was the printed one, the upper middle round of 20.
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
    # the ratio: the median of the JVM's per-round ratios (the mean of the middle two), as interleaved.py takes it
    python3 -c 'import decimal, re, sys; sys.path.insert(0, sys.argv[1]); from interleaved import jvm_medians
for p in sys.argv[2:]:
    t = open(p).read(); print(" %s %sx" % (re.search(r"^zmqzstd@3 +msgs_per_s=(\d+)", t, re.M).group(1),
                                          jvm_medians(t, decimal.Decimal)["zmqzstd@3"][1]), end=" ")
print()' "$(dirname "$0")/../../../../scripts" $(ls "$out/$v-$size-"j*.txt | sort -V)
  done
done | tee "$out/summary.txt"
