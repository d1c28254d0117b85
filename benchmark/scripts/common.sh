# Sourced by the benchmark scripts (run-all.sh, verdict.sh, profile-pipeline.sh, c/*.sh): the repository
# root as the working directory, a JDK 25 in $java (JAVA_HOME, or Temurin 25 where Debian puts it), the
# JMH jar in $jar (checked), and the libzstd 1.5.7 that aircompressor bundles, on demand.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jar=benchmark/target/benchmarks.jar
[[ -f "$jar" ]] || { echo "missing $jar: run ./mvnw -B -q install -DskipTests first" >&2; exit 2; }

# bundled_libzstd DIR: extracts aircompressor's libzstd (1.5.7, the one zstd-jni also bundles) from the
# jar under DIR, also as libzstd.so.1 (the file name the dynamic loader looks for), and prints the
# directory that holds it.
bundled_libzstd() {
  unzip -o -q -d "$1" "$jar" aircompressor/linux-amd64/libzstd.so
  ln -sf libzstd.so "$1/aircompressor/linux-amd64/libzstd.so.1"
  echo "$1/aircompressor/linux-amd64"
}
