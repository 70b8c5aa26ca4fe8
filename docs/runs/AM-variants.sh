#!/usr/bin/env bash
# Run AM: the shipped cute GEMV beside variant plugins (built by docs/runs/AM-gemv-plugin.sh into DIR), all in
# one khost command per round so that every case times them back to back; ROUNDS rounds (default 2). Prints
# one line a case and round: each backend's median us and % of copy. Usage: AM-variants.sh BUILD DIR SUITE NAMES...
set -uf
build=$1 dir=$2 suite=$3
shift 3
names=$(IFS=,; echo "$*")
export KHOST_SUITE_PATH=$PWD/suites
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
nvidia-smi --query-gpu=name --format=csv,noheader
status=0
for round in $(seq "${ROUNDS:-2}"); do
  json=$out/r$round.json
  "$build/khost" --suite "$suite" --backends "cute,$names" --plugin-dir "$dir" --json "$json" >"$out/log.txt" 2>&1
  rc=$?
  [ "$rc" = 0 ] || status=1
  if [ ! -f "$json" ]; then
    echo "round $round: exit $rc, no report: $(tail -n 3 "$out/log.txt")"
    continue
  fi
  python3 - "$round" "$rc" "$json" <<'PY'
import json, sys
rows = {}
for r in json.load(open(sys.argv[3]))["rows"]:
    if r["backend"] != "reference":
        t = (r.get("time") or {}).get("median_s") or 0
        rows.setdefault(r["case"], []).append("%s %s %.2f %.1f%%" % (r["backend"], r["status"], t * 1e6,
                                                                    100 * (r.get("peak_fraction") or 0)))
for case, parts in rows.items():
    print("round %s exit %s %-24s %s" % (sys.argv[1], sys.argv[2], case, " | ".join(parts)))
PY
done
exit $status
