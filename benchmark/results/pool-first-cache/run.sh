#!/usr/bin/env bash
# Rent + release on one thread (PoolBenchmark, thread caches on, 64 B) with the jar of 11eca66a (a
# ThreadLocal lookup at each) against that of 874b80bb (the first thread's cache found by an identity
# test first), six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/pool-first-cache/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  rent-release 'PoolBenchmark.rentRelease -p cache=thread -p size=64 -t 1'
