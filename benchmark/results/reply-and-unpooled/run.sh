#!/usr/bin/env bash
# What the bounded envelope loop of CompressingSender.reply (4ddd42f4) and the unpooled-memory branch of a pooled
# copying send (the free-on-return change of d361f13d and the commit before it: ZmqSocket.sendPooled's copying
# branch tests buffer.unpooledMemory) cost: the ROUTER -> DEALER workers reply pattern (ReplyBenchmark, zmqzstd, one
# worker, 1 KiB, level 3, tcp) and a pooled send of 1 KiB, copied below the zero-copy threshold (TransportBenchmark
# zeroCopyPooled, blocking receive, inproc and tcp); the jar of d361f13d against the jar of db919ac8, six rounds, the
# new jar first in even rounds, nothing else running.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/reply-and-unpooled/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  reply 'ReplyBenchmark -p way=zmqzstd -p workers=1 -p size=1024' \
  copy-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=1024 -p transport=inproc' \
  copy-tcp 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=1024 -p transport=tcp'
# Then the inproc copy again, six more rounds (its first median was 0.969):
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  again-copy-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=1024 -p transport=inproc'
