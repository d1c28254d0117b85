#!/usr/bin/env bash
# An A/A control for run.sh's 64 B decompression: the jar of 92ef2fa4 against itself, the same six alternating rounds
# (old fork first in each round, as in run.sh), 2026-11-29: what order and fork-to-fork scatter alone give.
set -euo pipefail
here=$(dirname "$0")
OUT=${OUT:-$here} OLD=${OLD:?jar of 92ef2fa4} NEW=$OLD "$here/../../scripts/alternate.sh" \
  aa-codec-telemetry 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
