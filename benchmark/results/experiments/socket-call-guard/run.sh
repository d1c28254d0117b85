#!/bin/bash
# SocketCallBenchmark, the build before the close guard (/tmp/old-benchmarks.jar) and the build with it
# (/tmp/new-benchmarks.jar) alternated fork by fork, 5 rounds; results in OUT (the first run: /tmp/ab2,
# copied here; the rerun on the final build: OUT=/tmp/ab3, copied to final/). The count made atomic
# (2026-11-25): old = c4c2970, new = the atomic count, ROUNDS=8 OUT=/tmp/cc, copied to atomic-count/;
# new = atomic adds refusing a second thread (ec82012), OUT=/tmp/cc2 -> atomic-detect/; new = the
# compare-and-set on entry and release store on exit that was kept, OUT=/tmp/cc3 -> cas/.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
out=${OUT:-/tmp/ab2}
mkdir -p "$out"
for r in $(seq 1 ${ROUNDS:-5}); do
  for v in old new; do
    $J -jar /tmp/$v-benchmarks.jar SocketCallBenchmark -prof gc -rf json -rff "$out/$v-$r.json" > "$out/$v-$r.log" 2>&1
  done
done
echo done > "$out/DONE"
