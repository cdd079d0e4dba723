#!/usr/bin/env bash
# Runs the engine hold-model benchmark beside the bare-heap floor and prints one table
# (benchmark, pending N, events/s, ratio to the bare loop). Settings fit a 2-core machine:
# one fork, one thread, 3 x 1 s warm-up, 5 x 1 s measurement. Extra arguments go to JMH,
# e.g. `benchmarks/run.sh -p distribution=uniform` or `-i 10`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "building $jar" >&2
  (cd "$root" && mvn -B -q -DskipTests -pl benchmarks -am package)
fi
exec java -cp "$jar" org.lockvisor.benchmarks.HoldReport -f 1 -wi 3 -i 5 -w 1s -r 1s -t 1 "$@"
