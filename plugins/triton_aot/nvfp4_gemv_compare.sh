#!/usr/bin/env bash
# Lab tooling for the GEMV's selection rule (nvfp4_gemv.c, docs/TRITON_AOT.md): compares
# triton_aot GEMV variants through khost on a GPU machine, each forced with
# KHOST_TRITON_VARIANT ("rule" leaves the plugin's own choice). Run from the source root,
# on a build staged by tools/gpu-stage.sh; reports go to $OUT, else to a temporary folder
# removed at the end.
#   plugins/triton_aot/nvfp4_gemv_compare.sh check BUILD VARIANT...
#                                                       each variant over the GEMV cases of
#                                                       correctness.ini and the GPU MODE test shapes
#   plugins/triton_aot/nvfp4_gemv_compare.sh time BUILD CASES VARIANT...
#                                                       one line a variant: time and % of copy of
#                                                       each GPU MODE case matching the --case glob
#                                                       CASES (cute beside it) and of performance.ini's
#                                                       GEMV cases
set -u
usage="usage: $0 check BUILD VARIANT... | time BUILD CASES VARIANT..."
if [ $# -lt 3 ] || { [ "$1" = time ] && [ $# -lt 4 ]; }; then
  echo "$usage" >&2
  exit 2
fi
mode=$1 khost=$2/khost
shift 2
if [ -n "${OUT:-}" ]; then
  out=$OUT
else
  # A private folder: fixed names in /tmp would mix up two runs, or another user's files.
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name --format=csv,noheader

force() {
  if [ "$1" = rule ]; then unset KHOST_TRITON_VARIANT; else export KHOST_TRITON_VARIANT=$1; fi
}

# summary LABEL JSON...: the cute and triton_aot rows of the reports on one line.
summary() {
  python3 - "$@" <<'PY'
import json, sys
out = []
for f in sys.argv[2:]:
    for r in json.load(open(f))["rows"]:
        if r["backend"] in ("triton_aot", "cute") and r["status"] in ("PASS", "SKIP", "FAIL"):
            t = r.get("time") or {}
            tag = "" if r["backend"] == "triton_aot" else "cute "
            out.append("%s%s %s %.2fus %.1f%%" % (tag, r["case"].replace("bench_", ""), r["status"],
                                                  (t.get("median_s") or 0) * 1e6, 100 * (r.get("peak_fraction") or 0)))
print(sys.argv[1].ljust(24), " | ".join(out))
PY
}

status=0
case $mode in
check)
  for v in "$@"; do
    force "$v"
    "$khost" --suite correctness --op nvfp4_gemv --backends triton_aot --max-time 0.02 >"$out/c.txt" 2>&1
    c=$?
    "$khost" --suite gpumode_nvfp4 --case 'test_*' --backends triton_aot --max-time 0.02 >"$out/g.txt" 2>&1
    g=$?
    echo "$v correctness exit $c: $(grep ^summary "$out/c.txt") | gpumode test exit $g: $(grep ^summary "$out/g.txt")"
    # Exit 1 is a row that failed, which the summary shows; anything else is no result.
    if [ "$c" -gt 1 ] || [ "$g" -gt 1 ]; then
      echo "$v: khost exited $c (correctness) and $g (gpumode_nvfp4) without a full run; its last lines:" >&2
      tail -n 3 "$out/c.txt" "$out/g.txt" >&2
      status=1
    fi
  done
  ;;
time)
  cases=$1
  shift
  for v in "$@"; do
    force "$v"
    # Old reports must never be summarised under this variant's name.
    rm -f "$out/b.json" "$out/p.json"
    "$khost" --suite gpumode_nvfp4 --case "$cases" --backends cute,triton_aot --json "$out/b.json" >/dev/null 2>&1
    b=$?
    "$khost" --suite performance --op nvfp4_gemv --backends triton_aot --json "$out/p.json" >/dev/null 2>&1
    p=$?
    # Exit 1 is a row that failed, which the summary shows; anything else is no result.
    if [ "$b" -gt 1 ] || [ "$p" -gt 1 ] || [ ! -f "$out/b.json" ] || [ ! -f "$out/p.json" ]; then
      echo "$v: khost exited $b (gpumode_nvfp4) and $p (performance) without a full report" >&2
      status=1
      continue
    fi
    summary "$v" "$out/b.json" "$out/p.json"
  done
  ;;
*)
  echo "$usage" >&2
  exit 2
  ;;
esac
exit $status
