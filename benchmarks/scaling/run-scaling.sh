#!/usr/bin/env bash
# The scaling study of docs/performance.md: runs the scale experiments at growing simulated time,
# vCPUs and tasks, one JVM per point, and appends one CSV line per point to $1 (default
# benchmarks/scaling/scaling.csv): the run's events, simulated and wall time (from result.json),
# the JVM's user + system CPU time and peak RSS (GNU time), the largest heap after a GC (the
# live set, from -Xlog:gc) and the load average at the start. CPU time is the figure to read on a
# shared machine. Plot it with ScalingPlot (see docs/performance.md). Needs cli/target/lockvisor.jar.
# AXES="tasks" (or any of simulated_s vcpus tasks) runs only those axes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${LOCKVISOR_JAR:-$root/cli/target/lockvisor.jar}"
csv="${1:-$root/benchmarks/scaling/scaling.csv}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[[ -f "$csv" ]] || echo "axis,x,events,simulated_ns,run_wall_ns,jvm_cpu_s,max_rss_mb,max_live_heap_mb,load1" > "$csv"

point() { # axis x yaml --set ...
  local axis="$1" x="$2" yaml="$3"
  shift 3
  local load
  load="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%U %S %M" -o "$tmp/time" java -Xlog:gc:file="$tmp/gc.log" -jar "$jar" run "$yaml" "$@" \
    --format json --out "$tmp/out" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; return 1; }
  python3 - "$axis" "$x" "$tmp" "$load" >> "$csv" <<'PY'
import json, re, sys
axis, x, tmp, load = sys.argv[1:5]
r = json.load(open(f"{tmp}/out/result.json"))["runs"][0]
user, sys_, rss = open(f"{tmp}/time").read().split()[-3:]
live = 0.0
for line in open(f"{tmp}/gc.log"):
    m = re.search(r"->(\d+)M\(", line)
    if m:
        live = max(live, float(m.group(1)))
print(f"{axis},{x},{r['events']},{r['warmup_ns'] + r['simulated_ns']},{r['wall_ns']},"
      f"{float(user) + float(sys_):.2f},{int(rss) / 1024:.0f},{live:.0f},{load}")
PY
  tail -1 "$csv"
  rm -rf "$tmp/out" "$tmp/gc.log"
}

iperf="$root/examples/experiments/scale-32vcpu-256streams.yaml"
messaging="$root/examples/experiments/scale-sched-messaging.yaml"
axes="${AXES:-simulated_s vcpus tasks}"
if [[ " $axes " == *" simulated_s "* ]]; then
  for d in 250ms 500ms 1s 2s; do
    point simulated_s "$(python3 -c "print({'250ms':0.25,'500ms':0.5,'1s':1,'2s':2}['$d'])")" "$iperf" --set duration=$d
  done
fi
if [[ " $axes " == *" vcpus "* ]]; then
  for v in 4 8 16 32 64; do
    point vcpus "$v" "$iperf" --set duration=250ms --set vms[0].vcpus=$v --set host.cpus=$((v / 2))
  done
fi
if [[ " $axes " == *" tasks "* ]]; then
  # 10 messages per pair, so that every point runs the whole benchmark (fork, messaging, exit,
  # reaping) within the 2 s simulated
  for g in 5 25 50 100 200; do
    point tasks "$((g * 40))" "$messaging" --set duration=2s --set vms[0].workloads[0].options.groups=$g \
      --set vms[0].workloads[0].options.loops=10
  done
fi
