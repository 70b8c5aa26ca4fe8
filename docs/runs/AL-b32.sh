#!/usr/bin/env bash
# Run AL: a variant of cute's GEMV, built as the plugin NAME (default cute_b32: one-warp blocks,
# docs/runs/AK-cute-block32.patch) in DIR by docs/runs/AF-cute-variant-plugin.sh, beside the shipped cute,
# twice in turn, on the GPU MODE benchmark shapes, performance.ini's GEMV cases and docs/runs/AK-rule.ini's
# full grids. One line a case and round: median us and % of copy of each plugin.
# Usage: docs/runs/AL-b32.sh BUILD DIR [NAME]
set -uf
build=$1 dir=$2 name=${3:-cute_b32}
export KHOST_SUITE_PATH=$PWD/suites
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
nvidia-smi --query-gpu=name --format=csv,noheader
status=0
for round in 1 2; do
  for spec in "gpumode_nvfp4 --case bench_*" "performance --op nvfp4_gemv" "docs/runs/AK-rule.ini"; do
    set -- $spec
    json=$out/b32-$round-$(basename "$1" .ini).json
    "$build/khost" --suite "$@" --backends "cute,$name" --plugin-dir "$dir" --json "$json" >"$out/b32.txt" 2>&1
    rc=$?
    if [ ! -f "$json" ]; then
      echo "round $round $1: exit $rc, no report: $(tail -n 3 "$out/b32.txt")"
      status=1
      continue
    fi
    python3 - "$round" "$rc" "$json" "$name" <<'PY'
import json, sys
rows = {}
for r in json.load(open(sys.argv[3]))["rows"]:
    if r["backend"] in ("cute", sys.argv[4]):
        t = (r.get("time") or {}).get("median_s") or 0
        rows.setdefault(r["case"], []).append("%s %s %.2fus %.1f%%" % (r["backend"], r["status"], t * 1e6,
                                                                      100 * (r.get("peak_fraction") or 0)))
for case, parts in rows.items():
    print("round %s exit %s %-28s %s" % (sys.argv[1], sys.argv[2], case, " | ".join(parts)))
PY
  done
done
exit $status
