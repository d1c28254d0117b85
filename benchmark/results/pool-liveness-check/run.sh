#!/usr/bin/env bash
# PooledBuffer.segment()/address() before (jar of 21ebc2be) and after (jar of 75304d8f) their check that the pool's
# memory is alive (42823253), six alternating rounds per benchmark, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3,
# libzmq 4.3.4, libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files. The transport's zeroCopyPooled strategy
# calls segment() once per message, and so does CompressingSender (PipelineBenchmark zmqzstd, one thread).
set -euo pipefail
OLD=${OLD:?jar before} NEW=${NEW:?jar after} OUT=${OUT:-$(dirname "$0")}
for r in 1 2 3 4 5 6; do
  for v in old new; do
    jar=$OLD; [ "$v" = new ] && jar=$NEW
    java -jar "$jar" TransportBenchmark -p strategy=zeroCopyPooled -p size=64 -p transport=inproc -p receiveMode=blocking \
      -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/transport-r$r-$v.json"
    java -jar "$jar" PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none \
      -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/pipeline-r$r-$v.json"
  done
done
