#!/usr/bin/env bash
# What reading a would-block's EAGAIN through zmq_errno() changes (caf49c69: a DONTWAIT call that fails reads errno
# through zmq_errno() and returns would-block on EAGAIN, instead of repeating the call through the errno-capturing
# handle, whose capture slice the JDK allocates until C2 has compiled that stub): a receive that finds nothing
# (SocketCallBenchmark, ns per call), poll-then-drain and blocking-then-drain receivers (TransportBenchmark, 1 KiB
# and 64 B over tcp), and the pipeline with the parallel sender, whose inline sends a full socket refuses (1 KiB
# tcp, level 3, three workers); the jar of caf49c69's tree against the jar of 95475b23, six rounds, the new jar first
# in even rounds.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/would-block-errno/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  would-block 'SocketCallBenchmark.receiveWouldBlock' \
  poller 'TransportBenchmark.sendReceive -p strategy=zeroCopyPooled -p receiveMode=poller -p size=1024 -p transport=tcp' \
  drain 'TransportBenchmark.sendReceive -p strategy=message -p receiveMode=blockingBatch -p size=64 -p transport=tcp' \
  parallel 'PipelineBenchmark -p contestant=zmqzstd -p compressionThreads=3 -p size=1024 -p transport=tcp -p level=3 -p dictionary=none'
