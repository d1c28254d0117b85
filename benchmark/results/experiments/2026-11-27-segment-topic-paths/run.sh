#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp30
date -u +%FT%TZ > started
for r in 1 2 3 4; do
  for v in old new; do
    java -jar $v.jar 'PipelineBenchmark' -p contestant=zmqzstd -p size=64,1024 -p transport=tcp -p level=3 -p dictionary=none -p compressionThreads=0,3 \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff pipeline-r$r-$v.json > pipeline-r$r-$v.log 2>&1
    java -jar $v.jar 'PublishBenchmark' -p topicForm=bytes -p size=1024 -p transport=tcp -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff publish-r$r-$v.json > publish-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
