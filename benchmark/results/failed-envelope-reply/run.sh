#!/usr/bin/env bash
# What the bounded envelope loop of CompressingSender.reply costs (4ddd42f4: the loop over a request's envelope parts
# stops at the view's part count, read once per reply, so that an envelope-only view (failedEnvelope) ends it): the
# ROUTER -> DEALER workers reply pattern (ReplyBenchmark, zmqzstd, one worker, 1 KiB, level 3, tcp), the jar of
# f880adba against the jar of db919ac8, six rounds, the new jar first in even rounds. A helper was building and
# testing another change on the machine during the run.
#   OLD=.../benchmarks.jar NEW=.../benchmarks.jar benchmark/results/failed-envelope-reply/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="$here" FIRST=alternate "$here/../../scripts/alternate.sh" \
  reply 'ReplyBenchmark -p way=zmqzstd -p workers=1 -p size=1024'
