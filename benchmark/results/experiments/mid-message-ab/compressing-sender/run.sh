#!/bin/bash
# Alternates the jar before the change (old: benchmarks.jar built from f3b7c08) and after it (new: from
# 74b7c4b, CompressingSender's per-part messageDropped check), fork by fork.
# Run on 2026-11-27 00:38-00:41 UTC, nothing else running, as ROUNDS=6 OUT=/tmp/ab/out3 run.sh; table: python3 summary.py /tmp/ab/out3
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${OUT:-/tmp/ab/out3}; mkdir -p $OUT
for r in $(seq 1 ${ROUNDS:-6}); do
  for v in old new; do
    jar=${OLD_JAR:-/tmp/bench-new/benchmarks.jar}; [ $v = new ] && jar=${NEW_JAR:-/tmp/bench-new2/benchmarks.jar}
    $J -jar $jar PipelineBenchmark -f 1 -wi 3 -w 1s -i 4 -r 1s -p contestant=zmqzstd -p compressionThreads=0 -p size=64,1024 -p transport=tcp -p level=3 -p dictionary=none -prof gc -rf json -rff $OUT/pipeline-$v-$r.json > $OUT/pipeline-$v-$r.log 2>&1
  done
done
echo done > $OUT/DONE
