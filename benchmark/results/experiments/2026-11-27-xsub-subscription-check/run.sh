#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd "$(dirname "$0")"
date -u +%FT%TZ > started
for r in ${ROUNDS:-1 2 3 4 5 6 7 8 9 10}; do
  for v in old new; do
    java -jar /tmp/bench46-$v/benchmark/target/benchmarks.jar '^io.zmqzstd.benchmark.SocketCallBenchmark.sendReceive64$' \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff call-r$r-$v.json > call-r$r-$v.log 2>&1
    java -jar /tmp/bench46-$v/benchmark/target/benchmarks.jar '^io.zmqzstd.benchmark.TransportBenchmark' -p strategy=zeroCopyPooled,message -p receiveMode=blocking -p size=64 -p transport=inproc \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff xfer-r$r-$v.json > xfer-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
