#!/usr/bin/env bash
# What reading straight into the caller's array gives a ZstdInputStream (a read of 4 KiB or more, with nothing decoded
# held, has zstd decode up to 128 KiB into the array through a critical ZSTD_decompressStream_simpleArgs, instead of
# into native scratch and a copy): StreamBenchmark.read, way=zmqzstd, 8 KiB reads, 64 KiB and 4 MiB frames, on the
# system libzstd and on libzstd 1.5.7 (LIB157=<libzstd.so>, aircompressor's bundled copy), the jar of e50a78bb
# against the jar of b92884b1 (the change, reverted by ead2dbf5), six rounds, the new jar first in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar LIB157=.../libzstd.so benchmark/results/stream-direct-read/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${LIB157:?libzstd 1.5.7 .so}"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  read-64k 'StreamBenchmark.read -p way=zmqzstd -p size=65536 -p chunk=8192 -p level=3' \
  read-4m 'StreamBenchmark.read -p way=zmqzstd -p size=4194304 -p chunk=8192 -p level=3' \
  read-64k-157 "StreamBenchmark.read -jvmArgsAppend -Dzmqzstd.libzstd.path=$LIB157 -p way=zmqzstd -p size=65536 -p chunk=8192 -p level=3" \
  read-4m-157 "StreamBenchmark.read -jvmArgsAppend -Dzmqzstd.libzstd.path=$LIB157 -p way=zmqzstd -p size=4194304 -p chunk=8192 -p level=3"
