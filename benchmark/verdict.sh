#!/usr/bin/env bash
# The issues' speed targets, checked in rounds. Each check is one narrow JMH invocation that runs every
# contestant of one comparison (so their ratio comes from one run), repeated ROUNDS times one after the
# other; benchmark/scripts/verdict.py then gives, per row, the median over the rounds of the ratio to
# the baseline, with its smallest and largest value. On a shared 2-core VM one run of a table can be off
# by 20-30 % for a minute; the median of ratios taken from neighbouring runs is what BENCHMARKS.md's
# verdicts quote. About 15 minutes per round.
#
# Usage: benchmark/verdict.sh [CHECK...]   (default: codec codec-samelib codec-64m codec-samelib-64m transport
#        pipeline pipeline-samelib pipeline-batch). The checks, each one JMH invocation a round:
#        codec is zmqzstd-segment against zstdjni-direct and aircompressor-native (the faster of the two in each
#        round), 64 B to 1 MiB, level 3, telemetry; codec-64m the same at 64 MiB; codec-samelib and
#        codec-samelib-64m the same with zmq-zstd on the libzstd 1.5.7 that the peers bundle.
#        transport is zeroCopyPooled against byteArray, tcp and inproc, 64 B to 256 KiB, blocking receive.
#        pipeline is zmqzstd against jeromqZstdjni, tcp and inproc, 64 B to 1 MiB; pipeline-samelib its tcp
#        cells from 1 KiB up with zmq-zstd on the libzstd 1.5.7 that the peers bundle.
#        pipeline-batch is the pipeline check over tcp with the whole JVM under SCHED_BATCH (chrt -b 0):
#        woken threads (libzmq's I/O thread, the receiver) no longer preempt the compressing sender.
#        pipeline-parallel is the pipeline check with zmqzstd sending through a ParallelCompressingSender
#        of 3 workers (PipelineBenchmark -p compressionThreads=3; the peers ignore the parameter).
#        codec-lib and codec-lib-64m are the codec checks with zmq-zstd on the libzstd file named by
#        LIBZSTD (e.g. one built from source by benchmark/scripts/build-libzstd.sh); the peers keep their
#        bundled 1.5.7. pipeline-parallel-tcp is pipeline-parallel's tcp cells from 1 KiB up, and
#        pipeline-parallel-lib the same with zmq-zstd on LIBZSTD (JeroMQ + zstd-jni on its bundled 1.5.7).
#        pipeline-parallel-l1 is pipeline-parallel-tcp at level 1 (the other checks run level 3).
#        pipeline-parallel-io2 is pipeline-parallel-tcp with every contestant's context on two I/O threads
#        (libzmq's or JeroMQ's; -Dzmqzstd.bench.ioThreads=2): each end of the connection its own, as in two
#        processes.
#        The -lib checks take LIBZMQ as well (e.g. one built by benchmark/scripts/build-libzmq.sh): zmq-zstd
#        then runs on that libzmq; JeroMQ has none. At least one of LIBZSTD and LIBZMQ must be set.
#        transport-small-lib is transport-small with zmq-zstd on LIBZMQ / LIBZSTD.
#        pipeline-reused: tcp, 1 KiB to 1 MiB, zmqzstd with one compressing thread and with three against
#        JeroMQ + zstd-jni used the short way (new arrays per message) and with reused arrays
#        (jeromqZstdjniReused). pipeline-parallel-peer: tcp, 1 KiB to 1 MiB, zmqzstd with three compressing
#        workers against JeroMQ + zstd-jni compressing on three threads of a JDK executor
#        (jeromqZstdjniParallel) and on one (jeromqZstdjni). transport-read: byteArray and zeroCopyPooled over tcp and inproc at 1, 64
#        and 256 KiB with receivers that read 8 bytes of each payload (read=stamp) and all of it (read=all).
#        transport-io2: the same over tcp with the sockets' context on one libzmq I/O thread (both ends of
#        the connection on it) and on two (each end its own, as in two processes).
#        transport-small is the transport check's four small cells alone (64 B and 512 B, tcp and inproc),
#        about one minute a round, so that many rounds can settle ratios whose single runs scatter widely.
# Env:   ROUNDS (default 3), OUT (default benchmark/results/verdict), JAVA_HOME (a JDK 25), LIBZSTD and
#        LIBZMQ (the -lib checks; a path from the current directory)
set -euo pipefail
source "$(dirname "$0")/scripts/args.sh"
handle_help "$@"
rounds="${ROUNDS:-3}"
require_count ROUNDS "$rounds"
# the libraries of the -lib checks, checked here and made absolute: the runs start from the repository root
for v in LIBZSTD LIBZMQ; do
  if [[ -n "${!v:-}" ]]; then
    require_file "$v" "${!v}"
    printf -v "$v" '%s/%s' "$(cd "$(dirname "${!v}")" && pwd)" "$(basename "${!v}")"
  fi
done
samelib=() # the JMH options that point zmq-zstd at the bundled libzstd, once extracted (below)
codec=(CodecBenchmark -f 1 -wi 3 -w 500ms -i 5 -r 500ms -p contestant=zmqzstd-segment,zstdjni-direct,aircompressor-native
       -p size=64,1024,65536,1048576 -p level=3 -p payload=telemetry)
codec64m=(CodecBenchmark -f 1 -wi 1 -w 3s -i 3 -r 3s -p contestant=zmqzstd-segment,zstdjni-direct,aircompressor-native
          -p size=67108864 -p level=3 -p payload=telemetry)
transportArgs=(TransportBenchmark -f 1 -wi 3 -w 1s -i 3 -r 1s -p strategy=byteArray,zeroCopyPooled -p receiveMode=blocking
               -p transport=tcp,inproc)
lib=(-jvmArgsAppend "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dzmqzstd.libzstd.path=${LIBZSTD:-} -Dzmqzstd.libzmq.path=${LIBZMQ:-}")
pipeline=(PipelineBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s -p contestant=zmqzstd,jeromqZstdjni -p level=3 -p dictionary=none)

# check_args CHECK: the check's JMH arguments in args and a command to run them under in prefix; returns 1
# for a name that is no check. Starts nothing, so that every name given is checked before the first round.
check_args() {
  prefix=()
  case "$1" in
    codec) args=("${codec[@]}") ;;
    codec-samelib) args=("${codec[@]}" "${samelib[@]}") ;;
    codec-lib) args=("${codec[@]}" "${lib[@]}") ;;
    codec-lib-64m) args=("${codec64m[@]}" "${lib[@]}") ;;
    codec-64m) args=("${codec64m[@]}") ;;
    codec-samelib-64m) args=("${codec64m[@]}" "${samelib[@]}") ;;
    transport) args=("${transportArgs[@]}" -p size=64,512,1024,65536,131072,262144) ;;
    transport-small) args=("${transportArgs[@]}" -p size=64,512) ;;
    transport-small-lib) args=("${transportArgs[@]}" -p size=64,512 "${lib[@]}") ;;
    pipeline) args=("${pipeline[@]}" -p size=64,1024,65536,1048576 -p transport=tcp,inproc) ;;
    pipeline-samelib) args=("${pipeline[@]}" -p size=1024,65536,1048576 -p transport=tcp "${samelib[@]}") ;;
    pipeline-parallel) args=("${pipeline[@]}" -p size=64,1024,65536,1048576 -p transport=tcp,inproc -p compressionThreads=3) ;;
    pipeline-parallel-tcp) args=("${pipeline[@]}" -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=3) ;;
    pipeline-parallel-io2) args=("${pipeline[@]}" -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=3
                                 -jvmArgsAppend "-Dzmqzstd.bench.ioThreads=2") ;;
    pipeline-parallel-l1) args=("${pipeline[@]/#level=3/level=1}" -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=3) ;;
    pipeline-parallel-lib) args=("${pipeline[@]}" -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=3 "${lib[@]}") ;;
    pipeline-reused) args=(PipelineBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s -p contestant=zmqzstd,jeromqZstdjni,jeromqZstdjniReused
                           -p level=3 -p dictionary=none -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=0,3) ;;
    pipeline-parallel-peer) args=(PipelineBenchmark -f 1 -wi 3 -w 2s -i 4 -r 1s
                                  -p contestant=zmqzstd,jeromqZstdjni,jeromqZstdjniParallel -p level=3 -p dictionary=none
                                  -p size=1024,65536,1048576 -p transport=tcp -p compressionThreads=3) ;;
    transport-read) args=("${transportArgs[@]}" -p size=1024,65536,262144 -p read=stamp,all) ;;
    transport-io2) args=("${transportArgs[@]:0:${#transportArgs[@]}-2}" -p transport=tcp -p size=1024,65536,262144
                         -p read=stamp,all -p ioThreads=1,2) ;;
    pipeline-batch) args=("${pipeline[@]}" -p size=64,1024,65536,1048576 -p transport=tcp); prefix=(chrt -b 0) ;;
    *) return 1 ;;
  esac
}

checks=("$@")
if [[ ${#checks[@]} -eq 0 ]]; then
  checks=(codec codec-samelib codec-64m codec-samelib-64m transport pipeline pipeline-samelib pipeline-batch)
fi
for c in "${checks[@]}"; do
  check_args "$c" || usage_error "unknown check: $c"
  if [[ "$c" == *-lib* && -z "${LIBZSTD:-}" && -z "${LIBZMQ:-}" ]]; then
    usage_error "$c needs LIBZSTD=/path/to/libzstd.so or LIBZMQ=/path/to/libzmq.so"
  fi
done

source "$(dirname "$0")/scripts/common.sh"
out="${OUT:-benchmark/results/verdict}"
mkdir -p "$out"
samelib_options "$out/libzstd-bundled" "${checks[@]}"

start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
  for c in "${checks[@]}"; do
    check_args "$c"
    echo "=== $c round $r"
    # -foe true: a trial that fails makes JMH exit non-zero (without it JMH exits 0 and the cell is missing)
    "${prefix[@]}" "$java" --sun-misc-unsafe-memory-access=allow -jar "$jar" "${args[@]}" -foe true -prof gc -rf json \
      -rff "$out/$c-r$r.json" > "$out/$c-r$r.log" 2>&1 || { tail -30 "$out/$c-r$r.log" >&2; exit 1; }
  done
done
rm -rf "$out/libzstd-bundled"
python3 benchmark/scripts/verdict.py "$out" | tee "$out/verdict.md"
echo "done in $(( (SECONDS - start) / 60 )) min: $out/verdict.md"
