#!/usr/bin/env bash
# run.sh's 64 B decompression again, the jar of 92ef2fa4 (OLD) against f83a93ea's (NEW), with the new jar first in the
# even rounds (FIRST=alternate), after run-aa.sh's control gave the second fork of a round 0.978 of the first with one
# jar on both sides; 2026-11-29.
set -euo pipefail
here=$(dirname "$0")
OUT=${OUT:-$here} OLD=${OLD:?jar of 92ef2fa4} NEW=${NEW:?jar of f83a93ea} FIRST=alternate "$here/../../scripts/alternate.sh" \
  abba-codec-telemetry 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
