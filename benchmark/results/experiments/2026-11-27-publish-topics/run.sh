#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp29
date -u +%FT%TZ > started
for r in 1 2 3; do
  java -jar bench.jar 'PublishBenchmark' -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff publish-r$r.json > publish-r$r.log 2>&1
  java -jar bench.jar 'PipelineBenchmark' -p contestant=zmqzstd -p size=1024,65536 -p transport=inproc,tcp -p level=3 -p dictionary=none \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff pipeline-r$r.json > pipeline-r$r.log 2>&1
done
date -u +%FT%TZ > finished
