#!/usr/bin/env bash
# ZstdCompressor.compressRouted (da151d2f): a catch (IndexOutOfBoundsException) on its existing try, which re-checks a
# staged source's range in the codec's words when the staging copy refused it; nothing on the success path. The jars
# of 92ef2fa4 (OLD) and af1bc987 (NEW: the session's code as it stands), six rounds, the new jar first in rounds 2, 4
# and 6 (FIRST=alternate), 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4:
# CodecBenchmark's compress at 64 B of zmqzstd-segment (a native source, not staged) and zmqzstd-bytes (a heap
# source, staged: the path the catch is on), and the same decompression as ../closed-segment-naming-check.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} FIRST=alternate exec "$(dirname "$0")/../../scripts/alternate.sh" \
  compress-segment 'CodecBenchmark\.compress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  compress-bytes 'CodecBenchmark\.compress$ -p contestant=zmqzstd-bytes -p size=64 -p level=1 -p payload=telemetry' \
  decompress-segment 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
