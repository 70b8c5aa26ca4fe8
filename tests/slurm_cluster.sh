#!/usr/bin/env bash
# A one-node Slurm cluster on localhost (munged, slurmctld and slurmd as the current user, in a temporary
# folder, with a slurm.conf written here), a job array of 4 shards per suite submitted with
# tools/slurm/submit.sh on the CPU reference, and its merged report checked against an unsharded run:
# the same rows in the same order with the same statuses, messages, counts and errors, the same totals,
# the same exit status. Skips (77) only when the daemons cannot be started here, saying why.
#   slurm_cluster.sh SOURCE_ROOT KHOST
set -euo pipefail
src=$1 khost=$2
# Quick timing: the rows compared are statuses, counts and errors, which timing does not change.
fast=(--warmup 0 --min-time 0 --max-time 0.02 --min-samples 2)
wait_s=${KHOST_SLURM_WAIT:-300}

skip() {
  echo "SKIP: $*"
  exit 77
}
for tool in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$tool" >/dev/null || skip "$tool not found: install Debian's slurm-wlm and munge (tools/bootstrap.sh does)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/khost-slurm.XXXXXX")
pids=()
teardown() {
  SLURM_CONF=$tmp/slurm.conf scontrol shutdown >/dev/null 2>&1 || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap teardown EXIT
show_logs() {
  for f in "$tmp"/log/*.log; do echo "== $f"; tail -n 20 "$f"; done
}

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
# --force: munged refuses a socket folder others cannot enter, as a temporary folder is.
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/socket" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" --log-file="$tmp/log/munged.log" &
pids+=($!)

# Two free ports for slurmctld and slurmd, so that runs beside each other do not meet.
read -r ctld_port slurmd_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
node=$(hostname -s)
# No cgroups (a container may lack them): linuxproc tracks processes, task/none binds nothing.
cat >"$tmp/slurm.conf" <<CONF
ClusterName=khosttest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=khost Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf

for _ in $(seq 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/socket" ] || { show_logs; skip "munged did not start (its log is above)"; }
slurmctld -D -i &
pids+=($!)
slurmd -D &
pids+=($!)
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { show_logs; skip "slurmctld and slurmd did not bring the node up (state '$state'; logs above)"; }
echo "one-node cluster up: node $node, slurmctld port $ctld_port, slurmd port $slurmd_port"

# The state of job id once it has ended; fails after wait_s seconds.
wait_job() {
  local id=$1 line state
  for _ in $(seq $((wait_s * 2))); do
    line=$(scontrol -o show job "$id" 2>/dev/null || true)
    state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$line")
    case $state in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
      echo "$line"
      return 0
      ;;
    esac
    sleep 0.5
  done
  echo "job $id did not end within $wait_s s: $line" >&2
  return 1
}

failures=0
for suite in smoke correctness; do
  set +e
  "$khost" --quiet --suite "$suite" "${fast[@]}" --json "$tmp/whole-$suite.json" >"$tmp/whole-$suite.txt"
  whole_status=$?
  set -e
  read -r _ array _ merge _ out < <("$src/tools/slurm/submit.sh" --tasks 4 --out "$tmp/$suite" --khost "$khost" \
    --gpus-per-task 0 --cpus-per-task 1 --time 10:00 -- --suite "$suite" "${fast[@]}")
  echo "$suite: array job $array, merge job $merge, reports in $out"
  merge_line=$(wait_job "$merge") || { show_logs; exit 1; }
  merge_exit=$(sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' <<<"$merge_line")
  checked=0
  python3 - "$tmp/whole-$suite.json" "$out" "$whole_status" "$merge_exit" <<'PY' || checked=1
import json, sys
whole_path, out, whole_status, merge_exit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
whole, merged = json.load(open(whole_path)), json.load(open(out + "/merged.json"))
shards = [json.load(open(f"{out}/shard-{i}.json")) for i in range(4)]
def key(r):
    c = r["check"]
    return (r["case"], r["op"], r["params"], r["backend"], r["device"], r["variant"], r["status"], r["message"],
            c["count"], c["mismatches"], c["unwritten"], c["max_abs"], c["max_rel"], c["mean_abs"],
            c["first_mismatches"], r["case_index"])
problems = []
if [key(r) for r in merged["rows"]] != [key(r) for r in whole["rows"]]:
    problems.append("merged rows differ from the unsharded run's:\n  merged %s\n  whole  %s" % (
        [key(r)[:8] for r in merged["rows"]], [key(r)[:8] for r in whole["rows"]]))
if merged["summary"]["counts"] != whole["summary"]["counts"]:
    problems.append("counts %s, unsharded %s" % (merged["summary"]["counts"], whole["summary"]["counts"]))
if not merged["finished"] or merged["run"]["merged_shards"] != 4 or merged["run"]["shard"] is not None:
    problems.append("merged run: finished %s, merged_shards %s, shard %s" % (
        merged["finished"], merged["run"]["merged_shards"], merged["run"]["shard"]))
selected = len({r["case"] for r in whole["rows"]})
if sorted(s["run"]["shard"]["index"] for s in shards) != [0, 1, 2, 3]:
    problems.append("shard indices %s" % [s["run"]["shard"] for s in shards])
if sum(s["run"]["shard"]["cases"] for s in shards) != selected or any(
        s["run"]["shard"]["selected_cases"] != selected for s in shards):
    problems.append("shard case counts %s do not add up to %d" % ([s["run"]["shard"] for s in shards], selected))
if merge_exit != whole_status:
    problems.append("merge job exit status %d, unsharded run's %d" % (merge_exit, whole_status))
for p in problems: print("FAIL:", p)
print("%s: %d rows, %d cases in shards of %s, counts %s: %s" % (out, len(merged["rows"]), selected,
      [s["run"]["shard"]["cases"] for s in shards], merged["summary"]["counts"], "FAIL" if problems else "ok"))
sys.exit(1 if problems else 0)
PY
  if [ "$checked" != 0 ]; then
    failures=$((failures + 1))
    for log in "$out"/*.log; do echo "-- $log:" && tail -n 30 "$log"; done
  fi
done
exit $((failures > 0))
