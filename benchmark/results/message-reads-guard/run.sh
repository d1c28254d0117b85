#!/usr/bin/env bash
# What one guard for all of a ZmqMessage's calls costs (efb5ebc1: reads and close enter the message's CallGuard, and
# the zmq_msg_t goes to libzmq as a global-scope segment, so no downcall acquires the shared arena's scope any more):
# TransportBenchmark receiving into a reused ZmqMessage (zeroCopyPooled, blocking receive, 64 B over inproc and tcp)
# and the pipeline end to end (its receiver receives into a ZmqMessage and reads hasMore, address and size; 64 B
# inproc, level 1, and 1 KiB tcp, level 1), the jar of 6f948963 against the jar of 8a01ae00, six rounds, the new jar
# first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/message-reads-guard/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  recv-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=inproc' \
  recv-tcp 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=tcp' \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none' \
  pipeline-tcp 'PipelineBenchmark -p contestant=zmqzstd -p size=1024 -p transport=tcp -p level=1 -p dictionary=none'
