#!/usr/bin/env bash
# The per-message checks added on 2026-11-29, before (jar of 06887c30) and after (jar of 9aaa362d), six alternating
# rounds, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files.
# - d66b0910: ReceivedMessage's accessors read a version before and after (a sequence lock), and every receive moves it
#   twice; PipelineBenchmark's zmqzstd receiver calls four accessors per message.
# - 96879023: ZstdCompressor.compress and ZstdDecompressor.decompress test isMapped() on both segments before handing
#   them to libzstd (a mapping takes the Java-copy path); CodecBenchmark's zmqzstd-segment contestant, 64 B, shows
#   the branch at its largest share of a call.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none' \
  codec 'CodecBenchmark\.(compress|decompress)$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
