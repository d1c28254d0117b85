#!/usr/bin/env bash
# CompressingSender.sendPart/sendOwned before (jar of 1031aabe) and after (jar of aecc8068) CompressingSender.reply
# (3eabca8a: one more argument, the request, and one more null test in the envelope condition on every send), six
# alternating rounds, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. Each round runs
# the plain send (PipelineBenchmark, 64 B inproc) and the send behind a topic (PublishBenchmark, segment topic, 1 KiB
# inproc). OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none' \
  publish 'PublishBenchmark -p topicForm=segment -p size=1024 -p transport=inproc'
