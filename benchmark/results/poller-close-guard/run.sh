#!/usr/bin/env bash
# What the poller's close through its guard costs a poll loop (b4857e40: close() enters the poller's CallGuard, and
# revents, read after every poll by isReadable/isWritable/hasError, reads the items inside a try/catch that names a
# close on another thread): TransportBenchmark receiving through a ZmqPoller (zeroCopyPooled, 64 B over inproc and
# tcp), the jar of 8a01ae00 against the jar of e50a78bb, six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/poller-close-guard/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  poll-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=poller -p size=64 -p transport=inproc' \
  poll-tcp 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=poller -p size=64 -p transport=tcp'
