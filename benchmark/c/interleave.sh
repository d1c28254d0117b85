#!/usr/bin/env bash
# zmqzstd against the C ceiling, run alternately: for each case, ROUNDS rounds of (C program, then one
# JMH fork of PipelineBenchmark for the zmqzstd contestant), one line per round with both rates and
# their ratio, then the median of the ratios. On a shared 2-core VM the machine's speed drifts by tens
# of percent over minutes; two runs made minutes apart compare the drift, two runs made back to back
# compare the programs. The ratio of each round is taken from neighbouring runs, and the median
# discards the rounds that a burst of load hit on one side only.
#
# Needs what benchmark/c/run.sh needs (gcc, libzmq3-dev, libzstd-dev, benchmarks.jar, JAVA_HOME).
# Usage: benchmark/c/interleave.sh [OUT_FILE]   (default benchmark/results/c/interleaved.txt)
# Env:   ROUNDS (default 5), CASES (default "64:tcp 64:inproc 1024:tcp 1024:inproc"; SIZE:TRANSPORT),
#        AFFINITY (default split: PipelineBenchmark -p affinity and PIPELINE_REF_AFFINITY),
#        FLOW (default credit: the C sender held to PipelineBenchmark's credit, as the Java sender is;
#        free: the C sender held back only by the high-water marks and the kernel's buffers;
#        PIPELINE_REF_FLOW, see pipeline_ref.c)
set -euo pipefail
source "$(dirname "$0")/common.sh"
result="${1:-$root/benchmark/results/c/interleaved.txt}"
rounds="${ROUNDS:-5}"
cases="${CASES:-64:tcp 64:inproc 1024:tcp 1024:inproc}"
affinity="${AFFINITY:-split}"
flow="${FLOW:-credit}"
level=3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$(dirname "$result")"
build_pipeline_ref "$work/pipeline_ref"
sizes=$(for c in $cases; do echo "${c%%:*}"; done | sort -un | tr '\n' ' ')
# shellcheck disable=SC2086 # a list of sizes
export_payloads "$work/data" $sizes

c_rate() { # size transport -> msg/s
  PIPELINE_REF_FLOW="$flow" PIPELINE_REF_AFFINITY="$affinity" "$work/pipeline_ref" "$work/data/telemetry-$1.bin" "$1" "$level" "$2" \
    "$(messages_for "$1")" | sed -n 's/.*msgs_per_s=\([0-9.]*\).*/\1/p'
}

java_rate() { # size transport -> msg/s (JMH score)
  "$java" --sun-misc-unsafe-memory-access=allow -jar "$jar" PipelineBenchmark -f 1 -wi 3 -w 1s -i 3 -r 1s \
    -p contestant=zmqzstd -p size="$1" -p transport="$2" -p level="$level" -p dictionary=none \
    -p affinity="$affinity" -rf csv -rff "$work/jmh.csv" >"$work/jmh.log" 2>&1 \
    || { cat "$work/jmh.log" >&2; exit 1; }
  awk -F, 'NR == 2 { print $5 }' "$work/jmh.csv"
}

{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cpus, affinity=$affinity, flow=$flow (C), level=$level, rounds=$rounds"
  echo "# size transport round c_msgs_per_s zmqzstd_msgs_per_s ratio"
} | tee "$result"
for c in $cases; do
  size="${c%%:*}"
  transport="${c##*:}"
  ratios=()
  for ((r = 1; r <= rounds; r++)); do
    cr=$(c_rate "$size" "$transport")
    jr=$(java_rate "$size" "$transport")
    ratio=$(awk -v j="$jr" -v c="$cr" 'BEGIN { printf "%.3f", j / c }')
    ratios+=("$ratio")
    printf '%s %s %d %.0f %.0f %s\n' "$size" "$transport" "$r" "$cr" "$jr" "$ratio" | tee -a "$result"
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  echo "median size=$size transport=$transport zmqzstd/C=$median" | tee -a "$result"
done
