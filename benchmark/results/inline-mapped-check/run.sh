#!/usr/bin/env bash
# The parallel sender's inline path before (jar of 0ab731f3) and after (jar of 5a3524bd) its mapping check of
# 29ccbf3a, three alternating rounds per size, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4,
# libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OLD=${OLD:?jar before} NEW=${NEW:?jar after} OUT=${OUT:-$(dirname "$0")}
for size in 1024 64; do
  for r in 1 2 3; do
    for v in old new; do
      jar=$OLD; [ "$v" = new ] && jar=$NEW
      java -jar "$jar" PipelineBenchmark -p contestant=zmqzstd -p size=$size -p transport=tcp -p level=3 \
        -p dictionary=none -p compressionThreads=3 -p inlineBelowBytes=4096 \
        -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/$size-r$r-$v.json"
    done
  done
done
