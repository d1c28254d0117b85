#!/bin/bash
# Rounds of CodecBenchmark, one JMH JVM per libzstd build, zstd-jni (bundled 1.5.7) in every run as the reference.
cd /work/main
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=/tmp/vp/libbuild
declare -A LIB=( [system]="" [deb-own]=/tmp/zsrc/libzstd-154-deb.so [154-O3]=/tmp/zsrc/libzstd-154-O3.so [157-O3]=/tmp/zsrc/libzstd-157-O3.so )
for r in 1 2 3; do
  for v in system deb-own 154-O3 157-O3; do
    args="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
    [ -n "${LIB[$v]}" ] && args="$args -Dzmqzstd.libzstd.path=${LIB[$v]}"
    echo "$(date -u +%H:%M:%S) round $r $v" >> $OUT/progress.txt
    $J -jar benchmark/target/benchmarks.jar 'CodecBenchmark\.(compress|decompress)$' \
      -p contestant=zmqzstd-segment,zstdjni-direct -p size=1024,65536,1048576 -p level=3 -p payload=telemetry \
      -f 1 -wi 2 -w 1 -i 4 -r 1 -jvmArgsAppend "$args" -rf json -rff $OUT/r$r-$v.json > $OUT/r$r-$v.log 2>&1
  done
done
echo "$(date -u +%H:%M:%S) done" >> $OUT/progress.txt
