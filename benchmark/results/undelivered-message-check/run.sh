#!/usr/bin/env bash
# DecompressingReceiver.readMessage before (jar of 9aaa362d) and after (jar of 9b1ee925) the hand-back of a message
# whose destination failed (8b57dfa6: a try around each payload part's decompression and one null check per message
# on the successful path), six alternating rounds, 2026-11-29, 2-core AMD EPYC VM, Temurin 25.0.3, libzmq 4.3.4,
# libzstd 1.5.4. OLD and NEW: the two benchmarks.jar files.
set -euo pipefail
OUT=${OUT:-$(dirname "$0")} EACH=jar exec "$(dirname "$0")/../../scripts/alternate.sh" \
  pipeline 'PipelineBenchmark -p contestant=zmqzstd -p size=64 -p transport=inproc -p level=1 -p dictionary=none'
