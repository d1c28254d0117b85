#!/usr/bin/env bash
# Alternates two benchmarks.jar builds fork by fork, six rounds, for the A/B tables of BENCHMARKS.md
# ("What ... costs"): for each round, each NAME and its JMH arguments, the old jar's fork then the new jar's, each
# `-f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc`, written to OUT/NAME-rROUND-old.json and -new.json (what check-figures.py's
# alternated_rows reads).
#   OLD=old.jar NEW=new.jar OUT=dir benchmark/scripts/alternate.sh NAME 'JMH ARGS' [NAME 'JMH ARGS' ...]
set -euo pipefail
OLD=${OLD:?jar before} NEW=${NEW:?jar after} OUT=${OUT:?folder for the JSON}
(( $# >= 2 && $# % 2 == 0 )) || { echo "usage: OLD=... NEW=... OUT=... $0 NAME 'JMH ARGS' [NAME 'JMH ARGS' ...]" >&2; exit 2; }
for r in 1 2 3 4 5 6; do
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i += 2)); do
    name=${args[i]}
    read -r -a jmh <<< "${args[i + 1]}"
    for v in old new; do
      jar=$OLD; [ "$v" = new ] && jar=$NEW
      java -jar "$jar" "${jmh[@]}" -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf json -rff "$OUT/$name-r$r-$v.json"
    done
  done
done
