#!/usr/bin/env bash
# What the message's own guard costs (one CAS and one release store per send and receive of a ZmqMessage):
# TransportBenchmark receiving into a reused ZmqMessage (zeroCopyPooled, blocking receive, 64 B over inproc and
# tcp) and the pipeline end to end (its receiver receives into a ZmqMessage; 64 B inproc, level 1), the jar
# before the guard (6d9552e5) against the jar with it (the guard's commits, bf9530da..d117bc4a on main, on 31671666), six rounds, the new jar
# first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/message-guard/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  recv-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=inproc' \
  recv-tcp 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=tcp' \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none'
