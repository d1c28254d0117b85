#!/usr/bin/env bash
# What libzmq's I/O thread does per message at 64 B over tcp, under zmqzstd (PipelineBenchmark) and
# under the C program (benchmark/c/pipeline_ref), both with affinity=split (the sender alone on CPU 0).
#
# Per run, while the measurement runs, over a WINDOW-second window of the thread ZMQbg/IO/0: its CPU
# time and how many sendto() calls it makes (perf stat: task-clock, syscalls:sys_enter_sendto), its
# user and kernel time (/proc/PID/task/TID/stat, clock ticks), and the TCP segments the machine
# delivered (nstat TcpExtTCPDelivered; loopback, nothing else should be talking). Messages in the
# window are the run's own rate (C: its timed part; JMH: its one 20 s iteration) times the window.
# Prints one line per run. A zmqzstd run that fails (a benchmark that throws, a fork that dies, a parameter JMH
# refuses) prints no line; it is named at the end (benchmark and parameters, JMH's exit status, a missing
# result), its log kept, and the script exits 1; so is a C run that exits non-zero or prints no rate.
#
# Needs perf with tracepoints (root), gcc and the headers (benchmark/c/common.sh), benchmarks.jar.
# Usage: [JMH_ARGS="-p maxLead=65536"] benchmark/scripts/iothread.sh c|zmqzstd RUNS [WINDOW]
set -euo pipefail
source "$(dirname "$0")/args.sh"
handle_help "$@"
(( $# >= 2 && $# <= 3 )) || usage_error "expected c|zmqzstd RUNS [WINDOW], got: $*"
which=$1; runs=$2; window=${3:-6}
[[ $which == c || $which == zmqzstd ]] || usage_error "the first argument is c or zmqzstd: $which"
require_count RUNS "$runs"
require_count WINDOW "$window"
source "$(dirname "$0")/../c/common.sh"
work=$(mktemp -d)
trap '(( ${#failures[@]} )) || rm -rf "$work"' EXIT # kept when something failed: its logs are named

if [[ $which == c ]]; then
  build_pipeline_ref "$work/pipeline_ref"
  export_payloads "$work/data" 64
fi

ticks() { # PID TID: utime stime of the thread, in clock ticks
  awk '{sub(/^.*\) /, ""); print $12, $13}' "/proc/$1/task/$2/stat"
}

measure() { # PID: the window of its thread ZMQbg/IO/0
  local t
  tid=
  for t in /proc/"$1"/task/*; do
    [[ "$(cat "$t/comm")" == ZMQbg/IO/0 ]] && tid=${t##*/}
  done
  [[ -n $tid ]] || { echo "no ZMQbg/IO/0 thread in process $1" >&2; exit 1; }
  read -r u0 s0 < <(ticks "$1" "$tid")
  nstat -n
  perf stat -x, -e task-clock,syscalls:sys_enter_sendto -t "$tid" -- sleep "$window" 2> "$work/stat"
  delivered=$(nstat -z TcpExtTCPDelivered | awk '/TcpExtTCPDelivered/{print $2}')
  read -r u1 s1 < <(ticks "$1" "$tid")
}

for run in $(seq "$runs"); do
  log=$work/$which-$run.log
  if [[ $which == c ]]; then
    PIPELINE_REF_AFFINITY=split "$work/pipeline_ref" "$work/data/telemetry-64.bin" 64 3 tcp 14000000 > "$log" 2>&1 &
    launcher=$!
    sleep 5
    measure "$launcher"
    status=0
    wait "$launcher" || status=$?
    rate=$(sed -n 's/.*msgs_per_s=\([0-9]*\).*/\1/p' "$log")
    if (( status != 0 )) || [[ -z $rate ]]; then
      failures+=("c run $run: pipeline_ref exited with status $status, msgs_per_s=${rate:-none} (see $log)")
      continue
    fi
  else
    # shellcheck disable=SC2086 # JMH_ARGS is a list of arguments
    sample_jmh "zmqzstd run $run" "$log" 15 measure PipelineBenchmark -f 1 -wi 2 -w 3s -i 1 -r 20s -p contestant=zmqzstd \
      -p size=64 -p transport=tcp -p level=3 -p dictionary=none -p affinity=split ${JMH_ARGS:-} || continue
    rate=$(awk '/^Iteration   1:/{print int($3)}' "$log" | tail -1)
  fi
  clock=$(awk -F, '/task-clock/{print $1}' "$work/stat")
  sendto=$(awk -F, '/sendto/{print $1}' "$work/stat")
  python3 - "$which" "$rate" "$window" "$clock" "$sendto" "$((u1 - u0))" "$((s1 - s0))" "$delivered" <<'EOF'
import sys
which, rate, window, clock_ms, sendto, user, system, delivered = sys.argv[1:]
rate, window, clock_ms, sendto = int(rate), float(window), float(clock_ms), int(sendto)
user, system, delivered = int(user), int(system), int(delivered)
msgs = rate * window
kernel_share = system / max(user + system, 1)
print(f"{which}: msgs_per_s={rate} io_cpu_us_per_msg={clock_ms * 1e3 / msgs:.2f}"
      f" io_kernel_us_per_msg={clock_ms * 1e3 * kernel_share / msgs:.2f}"
      f" io_user_us_per_msg={clock_ms * 1e3 * (1 - kernel_share) / msgs:.2f}"
      f" msgs_per_sendto={msgs / sendto:.2f} io_cpu_us_per_sendto={clock_ms * 1e3 / sendto:.2f}"
      f" msgs_per_tcp_segment={msgs / max(delivered, 1):.2f} io_busy={clock_ms / (window * 1e3):.0%}")
EOF
done
exit_on_failures "(their lines are missing above; logs in $work)"
