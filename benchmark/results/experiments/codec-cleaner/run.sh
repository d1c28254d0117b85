#!/bin/bash
# CodecBenchmark (zmqzstd-segment, level 3, telemetry, 64 B / 1 KiB / 64 KiB) with the build before
# the codec's cleaner safety net (/tmp/old-benchmarks.jar, bfd32b4) and the build with it
# (/tmp/new-benchmarks.jar), alternated JVM by JVM, ROUNDS rounds; results in OUT.
# summary.py OUT prints new/old per cell and round, and the median.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out=${OUT:-/tmp/codec-cleaner}
mkdir -p "$out"
for r in $(seq 1 ${ROUNDS:-6}); do
  for v in old new; do
    $J -jar /tmp/$v-benchmarks.jar CodecBenchmark -p contestant=zmqzstd-segment -p size=64,1024,65536 -p level=3 \
      -p payload=telemetry -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc -rf json -rff "$out/$v-$r.json" > "$out/$v-$r.log" 2>&1
  done
done
echo done > "$out/DONE"
