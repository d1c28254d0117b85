#!/usr/bin/env bash
# The inproc cell of run.sh again, six more rounds (its first six: 0.979, one round at 0.803), the same jars and order.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/message-guard/run-inproc-again.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  again-recv-inproc 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=blocking -p size=64 -p transport=inproc'
