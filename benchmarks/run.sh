#!/usr/bin/env bash
# Runs the benchmark suite and prints two tables. First, in one JMH run: the hold model at 10^3
# and 10^5 pending events on lockvisor's engine, on the bare primitive heap (same ordering and
# algorithm, no engine features), on a packed single-long heap (for information) and on SSJ
# 3.3.2's Henriksen event list, plus the qspinlock hand-off micro-model (N spinners). Columns:
# events/s, the ratio to the bare loop at the same N, and the engine's factor over SSJ at the same
# N. Second, in another JMH run: each reproduction's quick scenario as a whole, one machine run per
# invocation (R1 vhost-wakeup at 256 streams, R2 virtio-blk-notify on arm64 and x86, R3
# vcpu-preempted on ppc64); columns: wall ms per run, events/s, simulated ms per wall second.
# Settings fit a 2-core machine: one fork, one thread; hold models 3 x 1 s warm-up and 5 x 1 s
# measurement (about 2 minutes), reproductions 2 x 3 s warm-up and 3 x 4 s measurement (about 2
# minutes more on a quiet machine). Extra arguments go to JMH (both runs), e.g.
# `benchmarks/run.sh -i 10` or a benchmark regexp such as `benchmarks/run.sh 'Engine|Bare'` or
# `benchmarks/run.sh Quick`. `benchmarks/run.sh --cpu-time` instead runs the hold models
# round-robin in one JVM and divides by thread CPU time (for a loaded machine).
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
# HoldReport defaults to -f 1 -t 1, -wi 3 -i 5 -w 1s -r 1s (hold models, lock hand-off) and -wi 2 -i 3
# -w 3s -r 4s (reproductions); options given here override them.
exec java -cp "$jar" org.lockvisor.benchmarks.HoldReport "$@"
