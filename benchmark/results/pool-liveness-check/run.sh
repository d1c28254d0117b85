#!/usr/bin/env bash
# PooledBuffer.segment()/address() before (jar of 21ebc2be) and after (jar of 75304d8f) their check that the pool's
# memory is alive (42823253), six alternating rounds per benchmark, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3,
# libzmq 4.3.4, libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files. The transport's zeroCopyPooled strategy
# calls segment() once per message, and so does CompressingSender (PipelineBenchmark zmqzstd, one thread).
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  transport 'TransportBenchmark -p strategy=zeroCopyPooled -p size=64 -p transport=inproc -p receiveMode=blocking' \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none'
