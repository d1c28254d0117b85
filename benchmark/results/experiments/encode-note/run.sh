#!/bin/bash
# PipelineBenchmark zmqzstd over tcp, level 3, telemetry, no dictionary, 1 KiB and 64 KiB, one
# compressing thread (compressionThreads=0) and 3 workers, with the build before FrameOptions.encode
# took over noting each compressed frame for the incompressible check (/tmp/old-benchmarks.jar,
# e2437de) and the build with it (/tmp/new-benchmarks.jar), alternated JVM by JVM, ROUNDS rounds.
# SIZES sets the sizes (default 1024,65536); ORDER="new old" runs the new build first in each round; THREADS sets compressionThreads (default 0,3).
# summary.py OUT prints new/old per cell, median and range.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out=${OUT:-/tmp/encode-note}
mkdir -p "$out"
for r in $(seq 1 ${ROUNDS:-4}); do
  for v in ${ORDER:-old new}; do
    $J -jar /tmp/$v-benchmarks.jar PipelineBenchmark -p contestant=zmqzstd -p size=${SIZES:-1024,65536} -p transport=tcp -p level=3 \
      -p dictionary=none -p compressionThreads=${THREADS:-0,3} -f 1 -wi 2 -w 2s -i 3 -r 2s -prof gc -rf json -rff "$out/$v-$r.json" > "$out/$v-$r.log" 2>&1
  done
done
echo done > "$out/DONE"
