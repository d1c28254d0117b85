#!/usr/bin/env bash
# DecompressingReceiver.readMessage/decompressPart before (jar of 60cfcdf6) and after (jar of 63adf817) the hand-back of a
# message whose part does not fit in receiveInto's dst (559c6482: a part that does not fit returns a marker instead of a
# refusal, the success path keeping its one n < 0 test per part; 63adf817: the undelivered counter, failure path only),
# six alternating rounds, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4, libzstd 1.5.4. Each round runs
# the receiver's region (receive) and receiveInto (-Dzmqzstd.bench.receiveForm=into). OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline-region 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=region' \
  pipeline-into 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none -jvmArgsAppend -Dzmqzstd.bench.receiveForm=into'
