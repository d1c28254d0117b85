#!/usr/bin/env bash
# ZstdCompressor's ZSTD_compress2 path before (jar of 75304d8f) and after (jar of ec9b0fb3) the unended-frame flag
# of 444c58e0/96181a5b (a context with workers replaced after an abandoned frame), six alternating rounds, 2026-11-29,
# 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files. With a
# trained dictionary the pipeline's compressor takes the ZSTD_compress2 branch, which reads and writes the flag per
# call (without workers it stays false).
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=trained'
