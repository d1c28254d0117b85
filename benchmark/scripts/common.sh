# Sourced by the benchmark scripts (run-all.sh, verdict.sh, profile-pipeline.sh, c/*.sh): the repository
# root as the working directory, a JDK 25 in $java (JAVA_HOME, or Temurin 25 where Debian puts it), the
# JMH jar in $jar (checked), the libzstd 1.5.7 that aircompressor bundles, on demand (bundled_libzstd,
# samelib_options), fork_of, jmh_failures and what builds on it (jmh_check, exit_on_failures, sample_jmh).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jar=benchmark/target/benchmarks.jar
[[ -f "$jar" ]] || { echo "missing $jar: run ./mvnw -B -q -pl benchmark -am package -DskipTests first" >&2; exit 2; }

# bundled_libzstd DIR: extracts aircompressor's libzstd (1.5.7, the one zstd-jni also bundles) from the
# jar under DIR, also as libzstd.so.1 (the file name the dynamic loader looks for), and prints the
# directory that holds it.
bundled_libzstd() {
  unzip -o -q -d "$1" "$jar" aircompressor/linux-amd64/libzstd.so
  ln -sf libzstd.so "$1/aircompressor/linux-amd64/libzstd.so.1"
  echo "$1/aircompressor/linux-amd64"
}

# samelib_options DIR NAME...: when a NAME (a table or check) is a -samelib one, the JMH options that point
# zmq-zstd at the bundled libzstd (extracted under DIR) in samelib; else samelib is left as it is.
samelib_options() {
  local dir=$1
  shift
  if [[ " $* " == *-samelib* ]]; then
    samelib=(-jvmArgsAppend "-Dzmqzstd.libzstd.path=$(bundled_libzstd "$dir")/libzstd.so")
  fi
}

# fork_of LAUNCHER: the pid of the JMH fork (ForkedMain) that the java process LAUNCHER started, not any
# other benchmark JVM on the machine; fails when there is none (the launcher ended or has not forked yet).
fork_of() {
  local pid
  pid=$(pgrep -P "$1" -f ForkedMain || true)
  [[ -n $pid ]] || { echo "$(basename "${script:-$0}"): no benchmark fork under process $1" >&2; exit 1; }
  echo "$pid"
}

# jmh_failures NAME STATUS JSON LOG: after one JMH invocation (exit status STATUS, -rff JSON, output in LOG), a
# line "NAME: ..." for each trial LOG reports as failed (its benchmark and parameters), for a STATUS other than
# 0, and for a JSON that is missing or holds no result; nothing when the invocation gave its results. JMH
# without -foe marks a trial that threw with "<failure>" (a forked JVM that died, "<forked VM failed ...>"),
# goes on with the next trial, leaves the failed one out of the JSON and exits 0.
jmh_failures() {
  local name=$1 status=$2 json=$3 log=$4
  awk -v name="$name" '
    /^# JMH version/ { benchmark = ""; params = ""; reported = 0 }
    /^# Benchmark: / { benchmark = $3 }
    /^# Parameters: / { params = " " substr($0, 15) }
    /<failure>|<forked VM failed|<binary link had failed/ && !reported { print name ": " benchmark params " failed"; reported = 1 }
  ' "$log"
  (( status == 0 )) || echo "$name: JMH exited with status $status (see $log)"
  grep -qs '"benchmark"' "$json" || echo "$name: no results in $json"
}

# The failures of this script's JMH invocations so far, one line each (jmh_check adds them; exit_on_failures
# names them at the end).
failures=()

# jmh_check NAME STATUS JSON LOG: jmh_failures of one invocation, added to failures; fails when it added any, so
# that the caller prints no score from a trial that gave none.
jmh_check() {
  local before=${#failures[@]}
  mapfile -t -O "$before" failures < <(jmh_failures "$@")
  (( ${#failures[@]} == before ))
}

# exit_on_failures WHAT: when failures holds any, "SCRIPT: N failed WHAT:" and each failure on standard error, and
# exit 1; else nothing.
exit_on_failures() {
  (( ${#failures[@]} == 0 )) && return 0
  { echo "$(basename "${script:-$0}"): ${#failures[@]} failed $1:"
    printf '  %s\n' "${failures[@]}"; } >&2
  exit 1
}

# sample_jmh NAME LOG SETTLE MEASURE JMH-ARGS...: one JMH invocation in the background, its output in LOG and its
# JSON result beside it (LOG with .json for its extension); SETTLE seconds into it, MEASURE PID runs with the pid of
# its fork. Fails, what failed added to failures, when the invocation failed (jmh_check) or had ended (or had not
# forked) by then, so that nothing was measured. An invocation that ends early is not waited for SETTLE seconds.
sample_jmh() {
  local name=$1 log=$2 settle=$3 measure=$4
  shift 4
  local json=${log%.*}.json pid= status=0
  rm -f "$json"
  "$java" -jar "$jar" "$@" -rf json -rff "$json" > "$log" 2>&1 &
  local launcher=$!
  # timeout's status 124: SETTLE seconds passed with the launcher still running
  if ! timeout "$settle" tail --pid="$launcher" -s 0.2 -f /dev/null && pid=$(fork_of "$launcher"); then
    "$measure" "$pid"
  fi
  wait "$launcher" || status=$?
  jmh_check "$name" "$status" "$json" "$log" || return 1
  [[ -n $pid ]] || { failures+=("$name: no benchmark fork to measure ${settle} s into the run (see $log)"); return 1; }
}
