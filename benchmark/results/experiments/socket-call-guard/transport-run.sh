#!/bin/bash
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for r in 1 2 3 4; do
  for v in old new; do
    jar=/tmp/old/benchmark/target/benchmarks.jar; [ $v = new ] && jar=/tmp/new-benchmarks.jar
    $J -jar $jar TransportBenchmark -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=inproc,tcp -f 1 -wi 3 -w 1s -i 5 -r 1s -rf json -rff /tmp/ab/$v-$r.json > /tmp/ab/$v-$r.log 2>&1
  done
done
echo done > /tmp/ab/DONE
