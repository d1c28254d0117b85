#!/usr/bin/env bash
# Builds libzstd.so from a zstd source tree's lib/ directory with the flags upstream's lib/Makefile
# uses for the shared library (-O3 unless CFLAGS says otherwise, -fPIC, -fvisibility=hidden,
# multithreading, the x86-64 Huffman assembly), for zmq-zstd to load through
# -Dzmqzstd.libzstd.path. Needs gcc (or CC) and nothing else: no make, no cmake.
#
# Usage: benchmark/scripts/build-libzstd.sh ZSTD_LIB_DIR OUT.so
#   ZSTD_LIB_DIR  the lib/ directory of a zstd release (github.com/facebook/zstd/releases), or the
#                 zstd/lib/ directory of the zstd-sys crate (crates.io, e.g. zstd-sys-2.0.16+zstd.1.5.7)
#   CFLAGS        default -O3 (Debian's package passes -O2 and its hardening flags instead)
#   THREADS=0     builds without multithreading (no -DZSTD_MULTITHREAD, no -pthread): the library the
#                 codec's CompressorWorkersTest refuses workers on (.ci/run builds one for it)
set -euo pipefail
src="${1:?usage: build-libzstd.sh ZSTD_LIB_DIR OUT.so}"
out="${2:?usage: build-libzstd.sh ZSTD_LIB_DIR OUT.so}"
[[ -f "$src/zstd.h" ]] || { echo "build-libzstd.sh: $src/zstd.h not found (give the lib/ directory)" >&2; exit 2; }
read -r -a cflags <<< "${CFLAGS:--O3}"
case "${THREADS:-1}" in
  1) threads=(-DZSTD_MULTITHREAD -pthread) ;;
  0) threads=() ;;
  *) echo "build-libzstd.sh: THREADS is 1 (the default) or 0: THREADS=$THREADS" >&2; exit 2 ;;
esac
shopt -s nullglob
sources=("$src"/common/*.c "$src"/compress/*.c "$src"/decompress/*.c "$src"/dictBuilder/*.c "$src"/decompress/*.S)
"${CC:-gcc}" "${cflags[@]}" -fPIC -fvisibility=hidden -DXXH_NAMESPACE=ZSTD_ -DDEBUGLEVEL=0 \
  "${threads[@]}" -Wa,--noexecstack -Wl,-z,noexecstack -I"$src" -I"$src/common" \
  -shared -Wl,-soname,libzstd.so.1 -o "$out" "${sources[@]}"
echo "built $out: libzstd $(grep -E '^#define ZSTD_VERSION_(MAJOR|MINOR|RELEASE) ' "$src/zstd.h" | awk '{printf "%s%s", sep, $3; sep="."}'), CFLAGS ${cflags[*]}$([[ ${#threads[@]} -eq 0 ]] && echo ", without multithreading")"
