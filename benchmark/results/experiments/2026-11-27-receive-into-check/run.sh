#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd "$(dirname "$0")"
date -u +%FT%TZ > started
for r in ${ROUNDS:-1 2 3 4 5 6 7 8 9 10 11 12}; do
  for v in old new; do
    java -jar /tmp/bench45-$v/benchmark/target/benchmarks.jar '^io.zmqzstd.benchmark.PipelineBenchmark.transfer$' -p contestant=zmqzstd -p size=1024 -p transport=tcp -p level=3 -p dictionary=none \
      -jvmArgsAppend -Dzmqzstd.bench.receiveForm=into -prof gc -f 1 -wi 3 -w 1 -i 5 -r 2 -rf json -rff into-r$r-$v.json > /dev/null
  done
done
date -u +%FT%TZ > finished
