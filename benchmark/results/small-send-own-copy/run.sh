#!/usr/bin/env bash
# The small pooled send's own copy (874b80bb) against its parent (11eca66a): each jar's
# TransportOverhead rig (byteArray, zeroCopyPooled and nativeSegment taking turns inside one JVM, 20
# rounds) at 64 B and 256 B over tcp and 64 B over inproc, the two jars' JVMs alternating one by one,
# the new jar first in even rounds. OLD_TREE and NEW_TREE are checkouts of the two commits with
# benchmark/target/benchmarks.jar built (./mvnw -B -o -pl benchmark -am package -DskipTests).
#   OLD_TREE=... NEW_TREE=... JVMS=12 benchmark/results/small-send-own-copy/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${OLD_TREE:?checkout of 11eca66a}" "${NEW_TREE:?checkout of 874b80bb}"
cells=(transport:tcp:64 transport:inproc:64 transport:tcp:256)
for ((j = 1; j <= ${JVMS:-12}; j++)); do
  order=(old new)
  (( j % 2 == 0 )) && order=(new old)
  for v in "${order[@]}"; do
    tree=$OLD_TREE
    [[ $v == new ]] && tree=$NEW_TREE
    TRANSPORT_WAYS="byteArray zeroCopyPooled nativeSegment" JVMS=1 OUT="$here/$v" \
      bash "$tree/benchmark/interleaved.sh" "${cells[@]}" > /dev/null
  done
done
for v in old new; do
  # the pool's own share besides: zeroCopyPooled against nativeSegment round by round
  python3 "$NEW_TREE/benchmark/scripts/interleaved.py" "$here/$v" zeroCopyPooled/nativeSegment > "$here/$v/summary.md"
  echo "## $v"; cat "$here/$v/summary.md"
done
