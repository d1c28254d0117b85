#!/usr/bin/env bash
# run.sh's decompression read 0.951, all six rounds below 1, with the order alternated. The same against a variant of
# d7c9d242 whose decompress entries store null in the owner's stream field unconditionally (no read, no branch, no
# call), the form main took (NEW: its jar), 2026-11-29, six rounds, new jar first in rounds 2, 4, 6.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} FIRST=alternate exec "$(dirname "$0")/../../scripts/alternate.sh" \
  store-decompress 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
