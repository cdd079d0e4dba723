#!/usr/bin/env bash
# Runs the benchmark suite in one JMH run and prints one table: the hold model at 10^3 and 10^5
# pending events on lockvisor's engine, on the bare primitive heap (same ordering and algorithm,
# no engine features), on a packed single-long heap (for information) and on SSJ 3.3.2's
# Henriksen event list, plus the qspinlock hand-off micro-model (N spinners). Columns: events/s,
# the ratio to the bare loop at the same N, and the engine's factor over SSJ at the same N.
# Settings fit a 2-core machine: one fork, one thread, 3 x 1 s warm-up, 5 x 1 s measurement
# (about 2 minutes). Extra arguments go to JMH, e.g. `benchmarks/run.sh -i 10` or a benchmark
# regexp such as `benchmarks/run.sh 'Engine|Bare'`. `benchmarks/run.sh --cpu-time` instead runs
# the hold models round-robin in one JVM and divides by thread CPU time (for a loaded machine).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "building $jar" >&2
  (cd "$root" && mvn -B -q -DskipTests -pl benchmarks -am package)
fi
if [[ "${1:-}" == "--cpu-time" ]]; then
  shift
  exec java -cp "$jar" org.lockvisor.benchmarks.HoldCpuTime "$@"
fi
# HoldReport defaults to -f 1 -wi 3 -i 5 -w 1s -r 1s -t 1; options given here override them.
exec java -cp "$jar" org.lockvisor.benchmarks.HoldReport "$@"
