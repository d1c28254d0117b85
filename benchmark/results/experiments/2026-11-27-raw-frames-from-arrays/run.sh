#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp43
date -u +%FT%TZ > started
for r in ${ROUNDS:-1 2 3 4 5}; do
  for v in old new; do
    java -jar /tmp/bench43-$v/benchmark/target/benchmarks.jar 'PipelineBenchmark' -p contestant=zmqzstd -p size=64 -p transport=inproc,tcp -p level=3 -p dictionary=none -p rawFrameBelowBytes=128 \
      -jvmArgsAppend -Dzmqzstd.bench.payloadForm=bytes -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff raw64-r$r-$v.json > raw64-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
