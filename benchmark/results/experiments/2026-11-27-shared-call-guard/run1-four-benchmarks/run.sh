#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
cd /tmp/exp28
date -u +%FT%TZ > started
for r in 1 2 3 4; do
  for v in old new; do
    java -jar $v.jar 'CodecBenchmark' -p contestant=zmqzstd-segment -p size=64,1024 -p level=3 -p payload=telemetry \
      -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff codec-r$r-$v.json > codec-r$r-$v.log 2>&1
    java -jar $v.jar 'SocketCallBenchmark' -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff socket-r$r-$v.json > socket-r$r-$v.log 2>&1
    java -jar $v.jar 'PipelineBenchmark' -p contestant=zmqzstd -p size=64,1024 -p transport=inproc,tcp -p level=3 -p dictionary=none \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff pipeline-r$r-$v.json > pipeline-r$r-$v.log 2>&1
    java -jar $v.jar 'TransportBenchmark' -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=inproc,tcp \
      -prof gc -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff transport-r$r-$v.json > transport-r$r-$v.log 2>&1
  done
done
date -u +%FT%TZ > finished
