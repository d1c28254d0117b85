#!/usr/bin/env bash
# CompressingSender.sendPart/sendOwned before (jar of 1031aabe) and after (jar of aecc8068) CompressingSender.reply
# (3eabca8a: one more argument, the request, and one more null test in the envelope condition on every send), six
# alternating rounds, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. Each round runs
# the plain send (PipelineBenchmark, 64 B inproc) and the send behind a topic (PublishBenchmark, segment topic, 1 KiB
# inproc). OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OLD=${OLD:?jar before} NEW=${NEW:?jar after} OUT=${OUT:-$(dirname "$0")}
for r in 1 2 3 4 5 6; do
  for v in old new; do
    jar=$OLD; [ "$v" = new ] && jar=$NEW
    java -jar "$jar" PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none \
      -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/pipeline-r$r-$v.json"
    java -jar "$jar" PublishBenchmark -p topicForm=segment -p size=1024 -p transport=inproc \
      -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/publish-r$r-$v.json"
  done
done
