#!/bin/bash
# Run AC (docs/PERF.md): triton_aot GEMV loads of a (and sfa) with .cg (docs/runs/AC-triton-cg.patch)
# against 1cfb5dc's plain loads (triton_base.so), from stage/exp6/triton_<tag>.so,
# swapped into stage/build in the order given. Usage: AC-triton-cg.sh TAG...
set -u
export KHOST_SUITE_PATH=$PWD/suites
k=stage/build/khost
plug=stage/build/plugins/triton_aot/triton_aot.so
cp stage/exp6/triton_cg_a_sfa.so "$plug"
$k --suite correctness --op nvfp4_gemv --backends triton_aot --max-time 0.05 --json /tmp/corr_new.json > /dev/null 2>&1
echo "correctness new: exit $?"
round=0
for v in "$@"; do
  round=$((round + 1))
  cp stage/exp6/triton_$v.so "$plug"
  $k --suite gpumode_nvfp4 --backends triton_aot --json /tmp/r${round}_${v}_gpumode.json > /dev/null 2>&1
  echo "round $round $v gpumode exit $?"
  $k --suite performance --op nvfp4_gemv --backends triton_aot --json /tmp/r${round}_${v}_perf.json > /dev/null 2>&1
  echo "round $round $v perf exit $?"
done
python3 - "$OUT" <<'PY'
import json, glob, sys, re, collections
lines = []
d = json.load(open('/tmp/corr_new.json'))
lines.append(f"correctness new: {dict(collections.Counter((r['backend'], r['device'], r['status']) for r in d['rows']))}")
table = collections.defaultdict(dict)
for f in sorted(glob.glob('/tmp/r*_*.json')):
    m = re.match(r'/tmp/r(\d+)_(\w+?)_(gpumode|perf)\.json', f)
    for r in json.load(open(f))['rows']:
        if r['backend'] == 'triton_aot':
            t = r['time']['median_s']
            table[r['case']][f"{m.group(1)}{m.group(2)}"] = (t * 1e6 if t else 0, 100 * r['peak_fraction'], r['status'])
cols = sorted({k for v in table.values() for k in v})
lines.append("case | " + " | ".join(cols))
for case, v in table.items():
    lines.append(case + " | " + " | ".join(f"{v[c][0]:.2f} us {v[c][1]:.1f}% {v[c][2]}" if c in v else "-" for c in cols))
open(f"{sys.argv[1]}/AC-triton-cg-summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
