#!/usr/bin/env bash
# NativeBufferPool.rent before (jar of 5a2d9e67) and after (jar of 3c2e4fe8) aaa69f0f, which records a strict or
# sampled pool's rent site before the buffer is marked rented instead of after (the same operations in another
# order), six alternating rounds, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4.
# OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} exec "$(dirname "$0")/../../scripts/alternate.sh" \
  transport 'TransportBenchmark -p strategy=zeroCopyPooled -p size=64 -p transport=inproc -p receiveMode=blocking' \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none'
