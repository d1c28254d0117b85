#!/usr/bin/env bash
# What the poller's own guard costs (one CAS and one release store per poll): TransportBenchmark with the poller
# receive mode and the pooled send at 64 B, over inproc and tcp, the jar before the guard (874b80bb) against the
# jar with it (6d9552e5), six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/poller-guard/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  poll-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=poller -p size=64 -p transport=inproc' \
  poll-tcp 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=poller -p size=64 -p transport=tcp'
