#!/usr/bin/env bash
# EXPERIMENT run U call 4: sfa loads with .L2::256B (s1: evict-first, s2: no policy, s3: a chunks too).
set -u
export KHOST_SUITE_PATH=$PWD/suites
K=stage/build/khost
P="--plugin stage/var/cute_s1.so --plugin stage/var/cute_s2.so --plugin stage/var/cute_s3.so"
nvidia-smi --query-gpu=name --format=csv,noheader
$K $P --suite correctness --op nvfp4_gemv --backends cute_s1,cute_s2,cute_s3 --max-time 0.02 > $OUT/corr.txt 2>&1; echo "correctness exit $?"; grep ^summary $OUT/corr.txt
$K $P --suite gpumode_nvfp4 --case 'test_*' --backends cute_s1,cute_s2,cute_s3 --max-time 0.02 > $OUT/gmt.txt 2>&1; echo "gpumode test exit $?"; grep ^summary $OUT/gmt.txt
for order in "cute,cute_s1,cute_s2,cute_s3" "cute_s3,cute_s2,cute_s1,cute"; do
  $K $P --suite gpumode_nvfp4 --case 'bench_*' --backends $order --json $OUT/b.json > /dev/null 2>&1
  $K $P --suite performance --op nvfp4_gemv --backends $order --json $OUT/p.json > /dev/null 2>&1
  python3 - $OUT/b.json $OUT/p.json <<'PY'
import json, sys
rows = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["rows"]:
        if r["backend"].startswith("cute"):
            rows.setdefault(r["backend"], []).append("%s %s %.2fus %.1f%%" % (r["case"].replace("bench_", ""), r["status"], r["time"]["median_s"] * 1e6, 100 * r["peak_fraction"]))
for b in sorted(rows):
    print(b.ljust(8), " | ".join(rows[b]))
PY
done
