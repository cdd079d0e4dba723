#!/usr/bin/env bash
# A single-node Slurm cluster in a directory of its own, for SlurmSweepTest:
#   cluster.sh start DIR   # munged, slurmctld and slurmd with a generated slurm.conf; prints SLURM_CONF
#   cluster.sh stop DIR    # stops every daemon that 'start' started (by the pid files in DIR)
# Needs root (CI runs as root) and the Debian packages slurm-wlm and munge. Nothing outside DIR is
# written: the munge socket, the state and spool directories and the logs are all in DIR.
set -euo pipefail
cmd="${1:?usage: cluster.sh start|stop DIR}"
dir="$(cd "${2:?usage: cluster.sh start|stop DIR}" && pwd)"

stop() {
  for d in slurmd slurmctld munged; do
    if [[ -f "$dir/$d.pid" ]]; then
      pid="$(cat "$dir/$d.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/$d.pid"
    fi
  done
}

start() {
  local host cpus mem
  host="$(hostname -s)"
  cpus="$(nproc)"
  mem="$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  # munge: its own socket, the package's key
  munged --force --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge.seed" --key-file=/etc/munge/munge.key
  cat > "$dir/slurm.conf" <<CONF
ClusterName=lockvisor-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdTimeout=60
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=lockvisor Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -i
  slurmd
  # wait until the node is idle (up to 60 s)
  for _ in $(seq 600); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix)'; then
      echo "$SLURM_CONF"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm node did not come up; see $dir/log" >&2
  sinfo >&2 || true
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  return 1
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
