#!/usr/bin/env bash
# zstd's worker threads on the pipeline's payloads (see zstd_workers.c): 1 MiB (the pipeline's largest
# message), 8 MiB and 64 MiB telemetry, each with the system libzstd and with the 1.5.7 that the peers
# bundle. One block of lines per payload and library.
#
# Needs gcc and libzstd-dev, benchmark/target/benchmarks.jar and JAVA_HOME (JDK 25).
# Usage: benchmark/c/workers.sh [OUT_FILE]   (default benchmark/results/c/zstd-workers.txt)
# Env:   ROUNDS (default 7)
set -euo pipefail
source "$(dirname "$0")/common.sh"
result="${1:-$root/benchmark/results/c/zstd-workers.txt}"
rounds="${ROUNDS:-7}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$(dirname "$result")"
gcc -O2 -Wall -o "$work/zstd_workers" "$c_dir/zstd_workers.c" -lzstd
export_payloads "$work/data" 1048576 8388608 67108864
bundled="$(bundled_libzstd "$work/bundled")"
: > "$result"
for size in 1048576 8388608 67108864; do
  iterations=$(( 64 * 1048576 / size )); (( iterations >= 1 )) || iterations=1
  # run from the data directory, so that the lines name the payload, not a temporary path
  (cd "$work/data" && "$work/zstd_workers" "telemetry-$size.bin" "$rounds" "$iterations") | tee -a "$result"
  (cd "$work/data" && LD_LIBRARY_PATH="$bundled" "$work/zstd_workers" "telemetry-$size.bin" "$rounds" "$iterations") \
    | tee -a "$result"
done
