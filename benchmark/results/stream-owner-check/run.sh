#!/usr/bin/env bash
# The per-message paths of the session's last round, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4,
# libzstd 1.5.4: jars of af1bc987 (OLD) and d7c9d242 (NEW), six rounds, the new jar first in rounds 2, 4 and 6
# (FIRST=alternate).
# - 0ca3b8bf: ZstdCompressor.compressEntered and ZstdDecompressor's public decompress entries read the owner's stream
#   field (the ZstdOutputStream or ZstdInputStream that holds its context) and clear it when set: a field read and a
#   branch per call. CodecBenchmark compress and decompress of zmqzstd-segment, 64 B.
# - 4e854875: DecompressingReceiver.readMessage releases the last frame after its payloadParts == 0 test instead of
#   before (the same work on a delivered message). PipelineBenchmark, 64 B inproc, receive.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} FIRST=alternate exec "$(dirname "$0")/../../scripts/alternate.sh" \
  compress 'CodecBenchmark\.compress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  decompress 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none'
