#!/bin/bash
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
cd /tmp/zmqsrc/ab
for r in 1 2 3 4; do
  for v in old new; do
    $J --sun-misc-unsafe-memory-access=allow -jar $v.jar PipelineBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s -p contestant=zmqzstd,jeromqZstdjni -p level=3 -p dictionary=none -p size=64,1024 -p transport=tcp -prof gc -rf json -rff $v-r$r.json > $v-r$r.log 2>&1
  done
done
echo done > done
