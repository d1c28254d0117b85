#!/bin/bash
# Alternates the jar before the change (old: benchmarks.jar built from 16f0c32) and after it (new: from
# f3b7c08, ZmqSocket's mid-message send rule and the parallel sender's afterTopic), fork by fork.
# Run on 2026-11-26 23:54 to 2026-11-27 00:01 UTC as ROUNDS=5 OUT=/tmp/ab/out run.sh; table: python3 summary.py /tmp/ab/out
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${OUT:-/tmp/ab/out}; mkdir -p $OUT
for r in $(seq 1 ${ROUNDS:-4}); do
  for v in old new; do
    jar=${OLD_JAR:-/tmp/bench-old/benchmarks.jar}; [ $v = new ] && jar=${NEW_JAR:-/tmp/bench-new/benchmarks.jar}
    $J -jar $jar TransportBenchmark -f 1 -wi 3 -w 1s -i 4 -r 1s -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking -p size=64,65536 -p transport=tcp -prof gc -rf json -rff $OUT/transport-$v-$r.json > $OUT/transport-$v-$r.log 2>&1
    $J -jar $jar PipelineBenchmark -f 1 -wi 3 -w 1s -i 4 -r 1s -p contestant=zmqzstd -p compressionThreads=0,3 -p size=1024 -p transport=tcp -p level=3 -p dictionary=none -prof gc -rf json -rff $OUT/pipeline-$v-$r.json > $OUT/pipeline-$v-$r.log 2>&1
  done
done
echo done > $OUT/DONE
