#!/usr/bin/env bash
# The command-line tool with and without --threads: `zmq-zstd send` of one telemetry file to
# `zmq-zstd recv` over tcp loopback, the two ways taking turns, ROUNDS rounds.
#
# The file is the pipeline benchmarks' telemetry payload (ExportPayload), MIB MiB of JSON events
# separated by newlines. Per run: send reads it from a file on standard input and cuts it
# (FRAMING: "--chunk 64K" or "" for lines), recv writes to /dev/null and exits after the count.
# The figure is send's own summary: messages and uncompressed MB/s over its active window (first
# to last message), so JVM start and connection set-up are not in it. Prints one line per run and,
# per way, the median; the ratio of the medians at the end.
#
# Usage: [ROUNDS=5] [MIB=256] [LEVEL=3] [THREADS=3] [FRAMING="--chunk 64K"] benchmark/scripts/cli-threads.sh
set -euo pipefail
source "$(dirname "$0")/args.sh"
no_arguments "$@"
rounds=${ROUNDS:-5}; mib=${MIB:-256}; level=${LEVEL:-3}; threads=${THREADS:-3}
require_count ROUNDS "$rounds"
require_count MIB "$mib"
require_count THREADS "$threads"
framing=${FRAMING---chunk 64K}
[[ -z "$framing" || "$framing" == "--chunk 64K" ]] || usage_error "FRAMING is \"--chunk 64K\" or \"\": FRAMING=$framing"
source "$(dirname "$0")/common.sh"
cli=cli/target/zmq-zstd.jar
[[ -f "$cli" ]] || { echo "missing $cli: run ./mvnw -B -q install -DskipTests first" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

bytes=$((mib << 20))
"$java" --enable-native-access=ALL-UNNAMED -cp "$jar" io.zmqzstd.benchmark.ExportPayload "$work" "$bytes" > /dev/null
file="$work/telemetry-$bytes.bin"
if [[ -z "$framing" ]]; then
  count=$(tr -cd '\n' < "$file" | wc -c)
  [[ $(tail -c 1 "$file" | od -An -c | tr -d ' ') == '\n' ]] || count=$((count + 1))
else
  chunk=$((64 << 10))
  count=$(((bytes + chunk - 1) / chunk))
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, file ${mib} MiB telemetry, messages=$count," \
  "framing='${framing:-lines}', level=$level, tcp loopback; ways: --threads 0, --threads $threads"

port=5791
run() { # THREADS: prints "messages MB/s" from send's summary
  local out="$work/send.err"
  "$java" -jar "$cli" recv --bind "tcp://127.0.0.1:$port" --count "$count" --delimiter '' > /dev/null &
  local recv=$!
  # shellcheck disable=SC2086 # FRAMING is two words on purpose
  "$java" -jar "$cli" send --connect "tcp://127.0.0.1:$port" --level "$level" --threads "$1" $framing \
    --stats < "$file" 2> "$out"
  wait "$recv"
  sed -n 's/.*summary: messages=\([0-9]*\) .*throughput=\([0-9.]*\)MB\/s.*/\1 \2/p' "$out"
}

declare -a a b
for r in $(seq "$rounds"); do
  read -r m0 t0 <<< "$(run 0)"
  read -r m1 t1 <<< "$(run "$threads")"
  [[ $m0 == "$count" && $m1 == "$count" ]] || { echo "round $r: messages $m0 / $m1, expected $count" >&2; exit 1; }
  echo "round $r: --threads 0 ${t0} MB/s, --threads $threads ${t1} MB/s, ratio $(echo "$t1 / $t0" | bc -l | cut -c1-5)"
  a+=("$t0"); b+=("$t1")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ma=$(median "${a[@]}"); mb=$(median "${b[@]}")
echo "median: --threads 0 ${ma} MB/s, --threads $threads ${mb} MB/s, ratio of medians $(echo "$mb / $ma" | bc -l | cut -c1-5)"
