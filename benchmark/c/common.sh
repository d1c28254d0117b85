# Sourced by benchmark/c/run.sh and interleave.sh: building the C ceiling and feeding it the Java
# benchmarks' exact payloads. Needs gcc and the headers: apt-get install -y gcc libzmq3-dev libzstd-dev
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
c_dir="$root/benchmark/c"

# build_pipeline_ref BIN: compiles pipeline_ref.c into BIN
build_pipeline_ref() {
  gcc -O2 -Wall -o "$1" "$c_dir/pipeline_ref.c" -lzmq -lzstd -lpthread
}

# export_payloads DIR SIZE...: the telemetry payloads (telemetry-SIZE.bin) and the trained dictionary
# (telemetry.dict) that the Java benchmarks use
export_payloads() {
  local dir="$1"; shift
  "$java" --enable-native-access=ALL-UNNAMED -cp "$jar" io.zmqzstd.benchmark.ExportPayload "$dir" "$@" >/dev/null
}

# Messages per run: a few seconds each on a 2-core VM (the first 10% are warm-up).
messages_for() {
  case "$1" in
    64) echo 1000000 ;; 1024) echo 300000 ;; 65536) echo 20000 ;; *) echo 1500 ;;
  esac
}
