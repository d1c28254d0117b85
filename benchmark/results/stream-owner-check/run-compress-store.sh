#!/usr/bin/env bash
# The compressor's owner check made a store too, as the decompressor's (review of 2026-11-29): the jars of 5d695ac6
# (OLD: test and branch) and of that change (NEW), six rounds, the new jar first in rounds 2, 4 and 6, CodecBenchmark's
# compress of zmqzstd-segment (native source) and zmqzstd-bytes (staged heap source) at 64 B.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} FIRST=alternate exec "$(dirname "$0")/../../scripts/alternate.sh" \
  store-compress 'CodecBenchmark\.compress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  store-compress-bytes 'CodecBenchmark\.compress$ -p contestant=zmqzstd-bytes -p size=64 -p level=1 -p payload=telemetry'
