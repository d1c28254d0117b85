#!/bin/bash
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for r in 1 2 3 4 5; do
  for v in old new; do
    $J -jar /tmp/$v-benchmarks.jar SocketCallBenchmark -prof gc -rf json -rff /tmp/ab3/$v-$r.json > /tmp/ab3/$v-$r.log 2>&1
  done
done
echo done > /tmp/ab3/DONE
