#!/usr/bin/env bash
# Where the codec names a closed segment, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4,
# six alternating rounds each. ../closed-first-check (jars of 92ef2fa4 and b59fb676) gave 64 B decompression 0.973 and
# 0.974 in two sets of six rounds, with a catch around ZstdFrames.descriptor's header read and around
# decompressRouted's stored-frame copy (b1579898). f83a93ea moves the naming to catches on the public methods' try
# blocks that were there already.
# - MID=b59fb676's jar against NEW=f83a93ea's: the move alone, CodecBenchmark decompress of zmqzstd-segment, 64 B.
# - OLD=92ef2fa4's jar against NEW=f83a93ea's: the session's per-message changes as they stand (the receiver's checks
#   in another order, 7e3e2ad7; the codec's catches; ZstdFrames.walk's throw sites), 64 B decompression of
#   compressed (telemetry) and raw (binary) frames, and the pipeline at 64 B inproc by region and by receiveInto.
set -euo pipefail
here=$(dirname "$0")
OUT=${OUT:-$here} OLD=${MID:?jar of b59fb676} NEW=${NEW:?jar of f83a93ea} "$here/../../scripts/alternate.sh" \
  move-codec-telemetry 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry'
OUT=${OUT:-$here} OLD=${OLD:?jar of 92ef2fa4} NEW=$NEW EACH=jar "$here/../../scripts/alternate.sh" \
  codec-telemetry 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  codec-binary 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=binary' \
  pipeline-region 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=region' \
  pipeline-into 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=into'
