#!/usr/bin/env bash
# Builds libzmq.so.5 from a libzmq source tree with CMake (Release, draft APIs off, CURVE on), for
# zmq-zstd to load through -Dzmqzstd.libzmq.path, e.g. to run the test suites on another release:
#   ./mvnw -pl transport,pipeline test "-Dtest.argLine=--enable-native-access=ALL-UNNAMED \
#     -Dzmqzstd.leakDetection=strict -XX:+EnableDynamicAgentLoading -Dzmqzstd.libzmq.path=BUILD_DIR/lib/libzmq.so.5"
# Needs cmake and g++. CURVE uses libsodium when its headers are installed (apt-get install
# libsodium-dev); without them, releases up to 4.3.4 fall back to their bundled tweetnacl, and
# 4.3.5, which has none, builds without CURVE (the CURVE tests then fail).
#
# Usage: benchmark/scripts/build-libzmq.sh LIBZMQ_SRC_DIR BUILD_DIR
#   LIBZMQ_SRC_DIR  a libzmq release tree (github.com/zeromq/libzmq/releases), or the vendor/
#                   directory of the zeromq-src crate (crates.io, e.g. zeromq-src-0.3.6+4.3.5)
set -euo pipefail
src="${1:?usage: build-libzmq.sh LIBZMQ_SRC_DIR BUILD_DIR}"
out="${2:?usage: build-libzmq.sh LIBZMQ_SRC_DIR BUILD_DIR}"
[[ -f "$src/include/zmq.h" && -f "$src/CMakeLists.txt" ]] \
  || { echo "build-libzmq.sh: $src is not a libzmq source tree (no include/zmq.h or CMakeLists.txt)" >&2; exit 2; }
sodium=OFF
if pkg-config --exists libsodium 2>/dev/null; then sodium=ON; fi
mkdir -p "$out"
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DENABLE_DRAFTS=OFF -DENABLE_CURVE=ON \
  -DWITH_LIBSODIUM="$sodium" -DBUILD_TESTS=OFF -DBUILD_STATIC=OFF -DWITH_DOCS=OFF -DWITH_PERF_TOOL=OFF \
  > "$out/cmake.log" 2>&1 || { echo "build-libzmq.sh: cmake failed, see $out/cmake.log" >&2; exit 1; }
cmake --build "$out" -j "$(nproc)" > "$out/build.log" 2>&1 \
  || { echo "build-libzmq.sh: build failed, see $out/build.log" >&2; exit 1; }
version=$(grep -E '^#define ZMQ_VERSION_(MAJOR|MINOR|PATCH) ' "$src/include/zmq.h" | awk '{printf "%s%s", sep, $3; sep="."}')
echo "built $out/lib/libzmq.so.5: libzmq $version, libsodium $sodium"
