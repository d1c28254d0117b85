#!/usr/bin/env bash
# The runs behind BENCHMARKS.md, "What the proxy's own loop costs" and "Through a proxy" (2026-11-28).
# PART=full (or all): ROUNDS rounds, each ProxyBenchmark (both loops), then PipelineBenchmark with
# hop=none,proxy for the three contestants and with hop=libzmqProxy for the two on libzmq.
# PART=proxy (or all): ProxyBenchmark alone for rounds ROUNDS+1 to PROXY_ROUNDS.
# Run from the repository root after ./mvnw -pl benchmark -am package -DskipTests.
set -euo pipefail
ROUNDS=${ROUNDS:-2}
PROXY_ROUNDS=${PROXY_ROUNDS:-6}
PART=${PART:-all}
J=benchmark/target/benchmarks.jar
P=benchmark/results/proxy-loop
H=benchmark/results/pipeline-hop-2026-11-28
proxy_round() {
  java -jar $J ProxyBenchmark -wi 3 -w 1s -i 5 -r 1s -prof gc -rf json -rff $P/proxy-loop-r$1.json > $P/proxy-loop-r$1.log 2>&1
}
if [ "$PART" = full ] || [ "$PART" = all ]; then
  for r in $(seq 1 "$ROUNDS"); do
    proxy_round "$r"
    java -jar $J PipelineBenchmark -p contestant=zmqzstd,libzmqBytes,jeromqZstdjni -p size=1024,65536 -p transport=tcp,inproc -p level=3 -p dictionary=none -p hop=none,proxy -wi 3 -w 1s -i 5 -r 1s -prof gc -rf json -rff $H/pipeline-hop-r$r.json > $H/pipeline-hop-r$r.log 2>&1
    java -jar $J PipelineBenchmark -p contestant=zmqzstd,libzmqBytes -p size=1024,65536 -p transport=tcp,inproc -p level=3 -p dictionary=none -p hop=libzmqProxy -wi 3 -w 1s -i 5 -r 1s -prof gc -rf json -rff $H/pipeline-libzmq-proxy-r$r.json > $H/pipeline-libzmq-proxy-r$r.log 2>&1
  done
fi
if [ "$PART" = proxy ] || [ "$PART" = all ]; then
  for r in $(seq $((ROUNDS + 1)) "$PROXY_ROUNDS"); do
    proxy_round "$r"
  done
fi
