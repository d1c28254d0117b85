#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp28c
date -u +%FT%TZ > started
for r in 1 2 3 4 5; do
  for v in old new id; do
    java -jar /tmp/exp28/$v.jar 'SocketCallBenchmark' -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff socket-r$r-$v.json > socket-r$r-$v.log 2>&1
    java -jar /tmp/exp28/$v.jar 'CodecBenchmark.decompress' -p contestant=zmqzstd-segment -p size=64 -p level=3 -p payload=telemetry \
      -f 1 -wi 3 -w 1 -i 5 -r 1 -tu ns -bm avgt -rf json -rff codec-r$r-$v.json > codec-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
