#!/usr/bin/env bash
# Per-message paths before (jar of 92ef2fa4) and after (jar of b59fb676) this session's fixes, six alternating rounds,
# 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files.
# - DecompressingReceiver.receive(dst, flags) (7e3e2ad7): closed is checked first, then the flags, then dst's read-only
#   check (moved in from receiveInto): the same checks in another order. The pipeline at 64 B inproc, by the region
#   (receive) and by receiveInto (-Dzmqzstd.bench.receiveForm=into); 64 B goes below the sender's raw-frame limit, so
#   the receiver takes ZstdDecompressor's stored-frame copy, now inside a try/catch (b1579898).
# - ZstdFrames.descriptor (66a64715, b1579898): its first read of the frame inside a try/catch, and more arguments at
#   its throw sites; CodecBenchmark's decompress of zmqzstd-segment at 64 B, telemetry (compressed blocks) and binary
#   (a frame of raw blocks: the stored-frame copy).
# - ParallelCompressingSender.take (b59fb676): the flag check after the closed check; the pipeline with two
#   compressing workers at 1 KiB inproc.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline-region 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=region' \
  pipeline-into 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=into' \
  codec-telemetry 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=telemetry' \
  codec-binary 'CodecBenchmark\.decompress$ -p contestant=zmqzstd-segment -p size=64 -p level=1 -p payload=binary' \
  parallel 'PipelineBenchmark -p contestant=zmqzstd -p size=1024 -p transport=inproc -p level=1 -p dictionary=none -p compressionThreads=2'
