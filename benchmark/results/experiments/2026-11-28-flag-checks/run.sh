#!/bin/bash
# SocketCallBenchmark, the jar of c5ce5a53 (before the flag checks and the fault wrappers, /tmp/jar-old.jar)
# and the jar of 470db220 (with them, /tmp/jar-new.jar), alternated fork by fork, ROUNDS rounds.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out=${OUT:-/tmp/flags-ab}
for r in $(seq 1 ${ROUNDS:-5}); do
  for v in old new; do
    $J -jar /tmp/jar-$v.jar SocketCallBenchmark -prof gc -rf json -rff "$out/call-r$r-$v.json" > "$out/call-r$r-$v.log" 2>&1
  done
done
echo done > "$out/DONE"
