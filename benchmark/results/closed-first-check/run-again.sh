#!/usr/bin/env bash
# run.sh's codec-telemetry again (its six rounds gave a median of 0.973, five below 1), six more alternating rounds
# with the same jars, straight after, 2026-11-29; and the decompressor's one-call path with its header read on a larger
# frame (1 KiB), where a fixed cost per call weighs less.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} exec "$(dirname "$0")/../../scripts/alternate.sh" \
  codec-telemetry-again 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  codec-telemetry-1k 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=1024 -p level=1 -p payload=telemetry'
