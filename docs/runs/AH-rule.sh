#!/usr/bin/env bash
# Run AH: times triton_aot GEMV variants, each forced, over docs/runs/AH-rule.ini (or the suite in
# $SUITE; only the cases matching the glob $CASES, if set) and prints one line a variant (median us a case);
# the variant "rule" is the plugin's own choice.
# Usage: [SUITE=FILE] [CASES=GLOB] docs/runs/AH-rule.sh BUILD VARIANT...   (reports under $OUT)
set -u
build=$1
shift
export KHOST_SUITE_PATH=$PWD/suites
if [ -n "${OUT:-}" ]; then
  out=$OUT
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
for v in "$@"; do
  rm -f "$out/rule.json" "$out/rule.txt"
  # "rule" leaves the plugin's own choice, as in tools/gemv-variants.sh (run AK, call 7, got SKIP rows without it).
  if [ "$v" = rule ]; then unset KHOST_TRITON_VARIANT; else export KHOST_TRITON_VARIANT=$v; fi
  "$build/khost" --suite "${SUITE:-docs/runs/AH-rule.ini}" ${CASES:+--case "$CASES"} --backends triton_aot \
    --json "$out/rule.json" >"$out/rule.txt" 2>&1
  rc=$?
  # Without a report (a bad suite, say) khost's own last lines say why; a traceback would not (run AI, call 3).
  if [ ! -f "$out/rule.json" ]; then
    echo "exit $rc $v: no report; khost said: $(tail -n 3 "$out/rule.txt")"
    continue
  fi
  echo "exit $rc $(python3 - "$v" "$out/rule.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[2]))["rows"] if r["backend"] == "triton_aot"]
print(sys.argv[1].ljust(22), " | ".join("%s %s %.2f" % (r["case"].replace("rule_", ""), r["status"],
                                                        ((r.get("time") or {}).get("median_s") or 0) * 1e6) for r in rows))
PY
)"
done
rm -f "$out/rule.json" "$out/rule.txt"
