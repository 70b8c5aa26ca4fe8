#!/bin/bash
# Run AC (docs/PERF.md): the shipped cute.so against GEMV variant builds
# (stage/exp4/cute_<tag>.so), swapped into stage/build. Usage: AC-gemv-variants.sh TAG...
# (the order of the rounds; base is the shipped plugin; each other tag is first
# checked on the GEMV correctness cases).
set -u
export KHOST_SUITE_PATH=$PWD/suites
k=stage/build/khost
plug=stage/build/plugins/cute/cute.so
cp "$plug" /tmp/cute_base.so
for v in $(printf '%s\n' "$@" | grep -v '^base$' | sort -u); do
  cp stage/exp4/cute_$v.so "$plug"
  $k --suite correctness --op nvfp4_gemv --backends cute --max-time 0.05 --json /tmp/corr_$v.json > /tmp/corr_$v.txt 2>&1
  echo "correctness $v: exit $?"
done
round=0
for v in "$@"; do
  round=$((round + 1))
  if [ $v = base ]; then cp /tmp/cute_base.so "$plug"; else cp stage/exp4/cute_$v.so "$plug"; fi
  $k --suite gpumode_nvfp4 --backends cute --json /tmp/r${round}_${v}_gpumode.json > /dev/null 2>&1
  echo "round $round $v gpumode exit $?"
  $k --suite performance --op nvfp4_gemv --backends cute --json /tmp/r${round}_${v}_perf.json > /dev/null 2>&1
  echo "round $round $v perf exit $? at ${SECONDS}s"
done
cp /tmp/cute_base.so "$plug"
python3 - "$OUT" <<'PY'
import json, glob, sys, re, collections
out = sys.argv[1]
lines = []
for f in sorted(glob.glob('/tmp/corr_*.json')):
    d = json.load(open(f))
    c = collections.Counter((r['backend'], r['device'], r['status']) for r in d['rows'])
    lines.append(f"{f}: {dict(c)}")
table = collections.defaultdict(dict)
for f in sorted(glob.glob('/tmp/r*_*.json')):
    m = re.match(r'/tmp/r(\d+)_(\w+?)_(gpumode|perf)\.json', f)
    d = json.load(open(f))
    for r in d['rows']:
        if r['backend'] != 'cute':
            continue
        t = r['time']['median_s']
        table[r['case']][f"{m.group(1)}{m.group(2)}"] = (t * 1e6 if t else None, 100 * r['peak_fraction'], r['status'])
cols = sorted({k for v in table.values() for k in v})
lines.append("case | " + " | ".join(cols))
for case, v in table.items():
    lines.append(case + " | " + " | ".join(f"{v[c][0]:.2f} us {v[c][1]:.1f}% {v[c][2]}" if c in v and v[c][0] else "-" for c in cols))
open(f"{out}/AC-summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
tar czf "$OUT/AC-reports.tgz" /tmp/r*_*.json /tmp/corr_*.json 2>/dev/null
