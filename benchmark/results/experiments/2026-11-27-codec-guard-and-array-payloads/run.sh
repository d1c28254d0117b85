#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp27
date -u +%FT%TZ > started
for r in 1 2 3 4 5; do
  for v in old new; do
    java -jar /tmp/bench-$v/benchmark/target/benchmarks.jar 'CodecBenchmark' -p contestant=zmqzstd-segment -p size=64,1024 -p level=3 -p payload=telemetry \
      -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff codec-r$r-$v.json > codec-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > codec-done
for r in 1 2 3 4; do
  for v in bold new; do
    java -jar /tmp/bench-$v/benchmark/target/benchmarks.jar 'PipelineBenchmark' -p contestant=zmqzstd -p size=1024,65536 -p transport=tcp -p level=3 -p dictionary=none \
      -jvmArgsAppend -Dzmqzstd.bench.payloadForm=bytes -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff bytes-r$r-$v.json > bytes-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
