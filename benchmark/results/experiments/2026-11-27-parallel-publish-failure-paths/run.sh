#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp44
date -u +%FT%TZ > started
for r in ${ROUNDS:-1 2 3 4 5 6 7 8}; do
  for v in old new; do
    java -jar /tmp/bench44-$v/benchmark/target/benchmarks.jar 'PublishBenchmark' -p compressionThreads=3 -p topicForm=bytes -p size=1024,65536 -p transport=tcp -p level=3 \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff pub-r$r-$v.json > pub-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
