#!/usr/bin/env bash
# Alternates two benchmarks.jar builds fork by fork, six rounds, for the A/B tables of BENCHMARKS.md
# ("What ... costs"): each round runs, for each NAME and its JMH arguments, the old jar's fork and the new jar's, each
# `-f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc`, written to OUT/NAME-rROUND-old.json and -new.json (what check-figures.py's
# alternated_rows reads). EACH=benchmark (the default) takes the benchmarks in turn, both jars for each (old A, new A,
# old B, new B); EACH=jar takes the jars in turn, every benchmark for each (old A, old B, new A, new B). The old jar
# goes first in every round, unless FIRST=alternate: then the new jar goes first in the even rounds (an A/A control on
# this machine gave the second fork of a round about 2 % less, 2026-11-29, results/closed-segment-naming-check).
#   OLD=old.jar NEW=new.jar OUT=dir [EACH=jar] [FIRST=alternate] benchmark/scripts/alternate.sh NAME 'JMH ARGS' ...
set -euo pipefail
OLD=${OLD:?jar before} NEW=${NEW:?jar after} OUT=${OUT:?folder for the JSON} EACH=${EACH:-benchmark} FIRST=${FIRST:-old}
(( $# >= 2 && $# % 2 == 0 )) || { echo "usage: OLD=... NEW=... OUT=... $0 NAME 'JMH ARGS' [NAME 'JMH ARGS' ...]" >&2; exit 2; }
[[ $EACH == benchmark || $EACH == jar ]] || { echo "EACH is benchmark or jar, not $EACH" >&2; exit 2; }
[[ $FIRST == old || $FIRST == alternate ]] || { echo "FIRST is old or alternate, not $FIRST" >&2; exit 2; }
args=("$@")

fork() { # round, name, JMH arguments, old|new
  local jar=$OLD jmh
  [ "$4" = new ] && jar=$NEW
  read -r -a jmh <<< "$3"
  java -jar "$jar" "${jmh[@]}" -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/$2-r$1-$4.json"
}

for r in 1 2 3 4 5 6; do
  jars=(old new)
  [ "$FIRST" = alternate ] && (( r % 2 == 0 )) && jars=(new old)
  if [ "$EACH" = jar ]; then
    for v in "${jars[@]}"; do
      for ((i = 0; i < ${#args[@]}; i += 2)); do fork "$r" "${args[i]}" "${args[i + 1]}" "$v"; done
    done
  else
    for ((i = 0; i < ${#args[@]}; i += 2)); do
      for v in "${jars[@]}"; do fork "$r" "${args[i]}" "${args[i + 1]}" "$v"; done
    done
  fi
done
