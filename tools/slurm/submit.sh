#!/usr/bin/env bash
# Submits a khost job array of N shards and the merge job that depends on it; prints the two job ids.
#   tools/slurm/submit.sh [OPTIONS] -- [KHOST OPTIONS...]
#   --tasks N            shards, one array task each (4)
#   --out DIR            where the reports go, a folder every node can write (khost-runs/<date>)
#   --khost PATH         the khost binary (build/khost)
#   --gpus-per-task N    GPUs per task (1; 0 asks for none: CPU backends only)
#   --cpus-per-task N    CPUs per task (8)
#   --time LIMIT         each task's time limit, as sbatch --time takes it (1:00:00)
#   --sbatch ARG         one more option for both sbatch calls (repeatable): --partition=gpu, --account=...
# Example: tools/slurm/submit.sh --tasks 16 -- --suite performance --backends cute,triton_aot
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tasks=4 out="khost-runs/$(date -u +%Y%m%dT%H%M%SZ)" khost=build/khost gpus=1 cpus=8 limit=1:00:00
extra=()
usage() {
  sed -n '2,12s/^# \{0,1\}//p' "$0" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
  --tasks) tasks=${2:?}; shift 2 ;;
  --out) out=${2:?}; shift 2 ;;
  --khost) khost=${2:?}; shift 2 ;;
  --gpus-per-task) gpus=${2:?}; shift 2 ;;
  --cpus-per-task) cpus=${2:?}; shift 2 ;;
  --time) limit=${2:?}; shift 2 ;;
  --sbatch) extra+=("${2:?}"); shift 2 ;;
  --) shift; break ;;
  *) echo "submit.sh: unknown option '$1'" >&2; usage ;;
  esac
done
[[ $tasks =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --tasks needs a whole number from 1, got '$tasks'" >&2; exit 2; }
[ -x "$khost" ] || { echo "submit.sh: --khost '$khost' is not an executable file" >&2; exit 2; }
mkdir -p "$out"
# Absolute paths: a job starts in the folder sbatch was called from, which need not hold on every node.
khost=$(cd "$(dirname "$khost")" && pwd)/$(basename "$khost")
out=$(cd "$out" && pwd)
resources=(--cpus-per-task="$cpus" --time="$limit")
if [ "$gpus" != 0 ]; then resources+=(--gpus-per-task="$gpus"); fi
array=$(sbatch --parsable --array=0-$((tasks - 1)) "${resources[@]}" "${extra[@]}" \
  --output="$out/shard-%a.log" "$here/shard.sbatch" "$khost" "$out" --threads "$cpus" "$@")
array=${array%%;*} # --parsable prints JOBID[;CLUSTER]
merge=$(sbatch --parsable --dependency=afterany:"$array" --cpus-per-task=1 --time="$limit" "${extra[@]}" \
  --output="$out/merge.log" "$here/merge.sbatch" "$khost" "$out")
merge=${merge%%;*}
echo "array $array merge $merge out $out"
