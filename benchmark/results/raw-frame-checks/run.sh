#!/usr/bin/env bash
# What moving writeRawFrame's checks inside its try costs (95ff2d2e: the same checks in the same order, new catches
# naming the side): the pipeline end to end with every 64 B payload sent as a raw-block frame (rawFrameBelowBytes=128,
# inproc), the jar of 6d9552e5 against that of c6baec0a (95ff2d2e and three pipeline commits on refusal paths only),
# six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/raw-frame-checks/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  raw-inproc 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -p rawFrameBelowBytes=128'
