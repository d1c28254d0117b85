#!/usr/bin/env bash
# What the sender's room check after a refusal and the receive's conflate check cost (697f134f: CompressingSender reads
# one boolean per send, set by a refused DONTWAIT send; 56757975: ZmqSocket reads two plain fields per receive, the last
# frame's more flag and whether the socket conflates): the pipeline end to end (64 B inproc and 1 KiB tcp, level 1) and a
# blocking receive into a ZmqMessage (TransportBenchmark, message strategy, 64 B inproc); the jar of f30d9220 against the
# jar of c78eeaee, six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/refusal-and-conflate-checks/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none' \
  pipeline-tcp 'PipelineBenchmark -p contestant=zmqzstd -p size=1024 -p transport=tcp -p level=1 -p dictionary=none' \
  recv-inproc 'TransportBenchmark.sendReceive -p strategy=message -p receiveMode=blocking -p size=64 -p transport=inproc'
