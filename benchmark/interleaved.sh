#!/usr/bin/env bash
# Comparisons too close for separate JMH forks on this shared VM, where one fork of a small cell can
# differ from the next by 0.4x to 2.3x. The ways being compared take turns inside one JVM, round by
# round (io.zmqzstd.benchmark.TransportOverhead, CodecOverhead), so the machine's drift over minutes
# cancels in each round's ratio; and that JVM is run JVMS times per cell, the cells alternating, because
# rounds of one JVM share its state (threads' placement, compiled code) and two JVMs can disagree beyond
# what their rounds suggest. benchmark/scripts/interleaved.py then gives per cell and way the median of
# the JVMs' median ratios, their range, and in how many JVMs the ratio was above 1, with the sign test
# over JVMs.
#
# Usage:  benchmark/interleaved.sh [CELL...]   default: transport at 64 B, 512 B, 1 KiB, 64 KiB over tcp and inproc
#         (TRANSPORT is tcp or inproc, SIZE the payload in bytes)
# Cells:  transport:TRANSPORT:SIZE  zeroCopyPooled against byteArray (>1: zeroCopyPooled faster),
#                                    ROUTER to ROUTER, blocking receive, the pool's default zero-copy thresholds
#                                    (8 KiB; 512 B on inproc sockets); or the strategies of TRANSPORT_WAYS against
#                                    the first (zeroCopyPooled@B: a pool threshold of B bytes on every socket; a
#                                    last +all: the receiver reads and checks every byte of each payload; +copy: as
#                                    +all, a frame received in place copied into a reused heap array first; #N before
#                                    those: the rig's context with N libzmq I/O threads, e.g. byteArray#2+all)
#         switchover:TRANSPORT:SIZE  the pool's zero-copy send (threshold 0) against its copying send (threshold
#                                    1 TiB), both zeroCopyPooled (>1: zero-copy faster)
#         sharedpool:TRANSPORT:SIZE  two threads sending pooled messages through one context's pool, a 2 KiB zero-copy
#                                    threshold against the default 8 KiB (which copies below it and keeps thread caches
#                                    up to 8 KiB) (>1: 2 KiB faster); SHAREDPOOL_THRESHOLDS="BASE OTHER" sets the two
#                                    thresholds (default "8192 2048")
#         pipeline:TRANSPORT:SIZE    end to end, PUSH to PULL, level 3, telemetry (PipelineOverhead): the ways of
#                                    PIPELINE_WAYS (default: jeromqZstdjni zmqzstd zmqzstd@2 zmqzstd@3; @N = a
#                                    ParallelCompressingSender with N workers, @NxM a ring of M, @NiK
#                                    inlineBelowBytes K, @NgT inlineAfterIdleNanos T, a last w or c: a producer that
#                                    writes every payload, into its own memory or into claimed memory; #B after a zmqzstd way: zero-copy
#                                    threshold B on every socket) against the first (>1: faster); PIPELINE_IO_THREADS=N
#                                    gives every way's context N libzmq (or JeroMQ) I/O threads (default 1)
#         codec:METHOD:SIZE         bare libzstd calls and aircompressor against zmq-zstd (>1: faster than
#                                    zmq-zstd), METHOD compress or decompress, level 3, telemetry, every way
#                                    on the libzstd 1.5.7 that the peers bundle
# Env:    TRANSPORT_WAYS, PIPELINE_WAYS (each way checked before the first cell runs, a bad one named with what a
#         way may be), PIPELINE_IO_THREADS, SHAREDPOOL_THRESHOLDS (above), JVMS (default 10; runs
#         already in OUT are kept and added to), ROUNDS per JVM (default 20; codec cells 2x), OUT (default
#         benchmark/results/interleaved), PAIRS ("A/B ...": also compare two ways of a cell directly, round by
#         round, e.g. PAIRS="zeroCopyPooled+copy/zeroCopyPooled+all"), JAVA_HOME (a JDK 25)
set -euo pipefail
source "$(dirname "$0")/scripts/args.sh"
handle_help "$@"
jvms="${JVMS:-10}"
rounds="${ROUNDS:-20}"
require_count JVMS "$jvms"
require_count ROUNDS "$rounds"
require_count PIPELINE_IO_THREADS "${PIPELINE_IO_THREADS:-1}"
[[ ${SHAREDPOOL_THRESHOLDS:-8192 2048} =~ ^[0-9]+\ [0-9]+$ ]] ||
  usage_error "SHAREDPOOL_THRESHOLDS is two thresholds in bytes, \"BASE OTHER\": SHAREDPOOL_THRESHOLDS=$SHAREDPOOL_THRESHOLDS"
for pair in ${PAIRS:-}; do
  [[ $pair =~ ^[^/]+/[^/]+$ ]] || usage_error "a pair of PAIRS is two ways A/B: $pair"
done
out="${OUT:-benchmark/results/interleaved}"
libzstd="" # the bundled libzstd of the codec cells, extracted once common.sh is sourced

# cell_command CELL J: for the cell's J-th JVM the tool's JVM options in jvm, its class and arguments in main
# and its output file in file; returns 1 for a cell that is not KIND:TRANSPORT:SIZE (codec:METHOD:SIZE) with a
# kind, transport (method) and size the tools take. Starts nothing, so that every cell is checked first.
cell_command() {
  local kind what size n
  IFS=: read -r kind what size <<< "$1"
  [[ $size =~ ^[1-9][0-9]*$ ]] || return 1
  if [[ $kind == codec ]]; then [[ $what == compress || $what == decompress ]] || return 1
  else [[ $what == tcp || $what == inproc ]] || return 1; fi
  file="$out/$kind-$what-$size-j$2.txt"
  jvm=(--enable-native-access=ALL-UNNAMED)
  case "$kind" in
    transport|switchover)
      read -r -a ways <<< "${TRANSPORT_WAYS:-}"
      [[ "$kind" == switchover ]] && ways=(zeroCopyPooled@1099511627776 zeroCopyPooled@0)
      # about 0.1-0.3 s of traffic per strategy and round at every size
      if (( size >= 65536 )); then n=8000; elif (( size >= 8192 )); then n=30000; elif (( size >= 1024 )); then n=100000;
      else n=200000; fi
      main=(io.zmqzstd.benchmark.TransportOverhead "$what" "$size" "$rounds" "$n" "${ways[@]}") ;;
    sharedpool)
      # two senders, each this many messages a round: about 0.1-0.3 s of traffic per way and round
      if [[ "$what" == inproc ]]; then n=100000; else n=30000; fi
      # shellcheck disable=SC2206 # the two thresholds
      main=(io.zmqzstd.benchmark.SharedPoolOverhead "$what" "$size" "$rounds" "$n" 2 ${SHAREDPOOL_THRESHOLDS:-8192 2048}) ;;
    pipeline)
      # about 0.3-0.5 s per way and round
      if (( size >= 1048576 )); then n=150; elif (( size >= 65536 )); then n=3000; elif (( size >= 1024 )); then n=40000;
      else n=100000; fi
      read -r -a pways <<< "${PIPELINE_WAYS:-jeromqZstdjni zmqzstd zmqzstd@2 zmqzstd@3}"
      jvm+=(--sun-misc-unsafe-memory-access=allow "-Dzmqzstd.bench.ioThreads=${PIPELINE_IO_THREADS:-1}")
      main=(io.zmqzstd.benchmark.PipelineOverhead "$what" "$size" 3 "$rounds" "$n" "${pways[@]}") ;;
    codec)
      if (( size >= 65536 )); then n=1000; else n=20000; fi
      jvm+=("-Dzmqzstd.libzstd.path=$libzstd")
      main=(io.zmqzstd.benchmark.CodecOverhead "$what" "$size" $(( 2 * rounds )) "$n") ;;
    *) return 1 ;;
  esac
}

cells=("$@")
if [[ ${#cells[@]} -eq 0 ]]; then
  for t in tcp inproc; do for s in 64 512 1024 65536; do cells+=("transport:$t:$s"); done; done
fi
for cell in "${cells[@]}"; do
  cell_command "$cell" 0 || usage_error "unknown cell: $cell (transport:, switchover:, sharedpool:, pipeline:TRANSPORT:SIZE \
with TRANSPORT tcp or inproc, or codec:METHOD:SIZE with METHOD compress or decompress; SIZE a whole number above 0)"
done

source "$(dirname "$0")/scripts/common.sh"
# the ways are the tools' to parse: every one given is checked in one JVM before the first cell runs
ways_wrong=$("$java" -cp "$jar" io.zmqzstd.benchmark.OverheadWays TRANSPORT_WAYS "${TRANSPORT_WAYS:-}" \
  PIPELINE_WAYS "${PIPELINE_WAYS:-}" 2>&1) || usage_error "$ways_wrong"
mkdir -p "$out"
for cell in "${cells[@]}"; do
  [[ "$cell" == codec:* && -z "$libzstd" ]] && libzstd="$(bundled_libzstd "$out/libzstd-bundled")/libzstd.so"
done
# a cell's JVM runs are numbered on from those already in $out, so that a later call adds to them
declare -A done_before
for cell in "${cells[@]}"; do
  done_before[$cell]=$(find "$out" -name "${cell//:/-}-j*.txt" | wc -l)
done
start=$SECONDS
for ((i = 1; i <= jvms; i++)); do
  for cell in "${cells[@]}"; do
    j=$(( done_before[$cell] + i ))
    echo "=== $cell jvm $j"
    cell_command "$cell" "$j"
    "$java" "${jvm[@]}" -cp "$jar" "${main[@]}" > "$file"
  done
done
rm -rf "$out/libzstd-bundled"
python3 benchmark/scripts/interleaved.py "$out" ${PAIRS:-} | tee "$out/summary.md"
echo "done in $(( (SECONDS - start) / 60 )) min: $out/summary.md"
