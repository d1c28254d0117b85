#!/usr/bin/env bash
# The C ceiling (pipeline_ref.c) on the Java benchmarks' exact payloads and dictionary: builds it, exports
# the payloads from benchmarks.jar, and prints one line per run: sizes 64, 1024, 65536, 1048576 x tcp,
# inproc at level 3 without a dictionary, the trained dictionary at 64 and 1024, level 1 over tcp at 1024
# and 65536; each with threads where the scheduler puts them (affinity=none) and with the sender alone on
# CPU 0 (affinity=split, PIPELINE_REF_AFFINITY); then 1 KiB, 64 KiB and 1 MiB over tcp on libzstd 1.5.7.
#
# Needs gcc and the headers: apt-get install -y gcc libzmq3-dev libzstd-dev
# Needs benchmark/target/benchmarks.jar (./mvnw -B -q -pl benchmark package) and JAVA_HOME (JDK 25).
# Usage: benchmark/c/run.sh [OUT_DIR]   (default benchmark/results/c; also writes pipeline_ref.txt there)
set -euo pipefail
source "$(dirname "$0")/common.sh"
out="${1:-$root/benchmark/results/c}"
level=3

mkdir -p "$out"
build_pipeline_ref "$out/pipeline_ref"
export_payloads "$out/data" 64 1024 65536 1048576

result="$out/pipeline_ref.txt"
: > "$result"
run() { # affinity level size transport [dict]; LIBRARY=system|bundled names the libzstd in the line
  PIPELINE_REF_AFFINITY="$1" "$out/pipeline_ref" "$out/data/telemetry-$3.bin" "$3" "$2" "$4" "$(messages_for "$3")" \
    ${5:+"$5"} | sed "s/^/library=${LIBRARY:-system} /" | tee -a "$result"
}
# As PipelineBenchmark's tables: -p affinity=none,split; level 3 without and with the dictionary; level 1 over tcp.
for affinity in none split; do
  for size in 64 1024 65536 1048576; do
    for transport in tcp inproc; do
      run "$affinity" "$level" "$size" "$transport"
    done
  done
  for size in 64 1024; do
    for transport in tcp inproc; do
      run "$affinity" "$level" "$size" "$transport" "$out/data/telemetry.dict"
    done
  done
  for size in 1024 65536; do
    run "$affinity" 1 "$size" tcp
  done
done
# As the pipeline-samelib table: the same program on the libzstd 1.5.7 that zstd-jni and aircompressor bundle
# (aircompressor's copy, soname libzstd.so.1, found first through LD_LIBRARY_PATH; each line names the
# version it loaded).
bundled="$(bundled_libzstd "$out/libzstd-bundled")"
for size in 1024 65536 1048576; do
  LIBRARY=bundled LD_LIBRARY_PATH="$bundled" run none "$level" "$size" tcp
done
rm -rf "$out/libzstd-bundled"
system_version="$(grep -m1 '^library=system' "$result" | sed 's/.*libzstd=//')"
if grep '^library=bundled' "$result" | grep -q "libzstd=$system_version\$"; then
  echo "the bundled runs loaded the system libzstd $system_version, not the bundled one" >&2
  exit 1
fi
