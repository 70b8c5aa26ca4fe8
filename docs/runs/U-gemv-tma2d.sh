#!/usr/bin/env bash
# EXPERIMENT run U: 2D-TMA per-warp ring GEMV variants against the committed kernel.
set -u
export KHOST_SUITE_PATH=$PWD/suites
K=stage/build/khost
nvidia-smi --query-gpu=name --format=csv,noheader
for v in 221 121; do
  KHOST_GEMV_TMA=$v $K --suite correctness --op nvfp4_gemv --backends cute --max-time 0.02 --json $OUT/corr-$v.json > $OUT/corr-$v.txt 2>&1
  echo "correctness $v exit $?"; grep -E "^summary" $OUT/corr-$v.txt
  KHOST_GEMV_TMA=$v $K --suite gpumode_nvfp4 --case 'test_*' --backends cute --max-time 0.02 > $OUT/gm-$v.txt 2>&1
  echo "gpumode test $v exit $?"; grep -E "^summary" $OUT/gm-$v.txt
done
for v in base 221 121 131 231 421 122 222 141 base; do
  if [ $v = base ]; then unset KHOST_GEMV_TMA; else export KHOST_GEMV_TMA=$v; fi
  $K --suite gpumode_nvfp4 --case 'bench_*' --backends cute --json $OUT/b-$v.json > /dev/null 2>&1
  $K --suite performance --op nvfp4_gemv --backends cute --json $OUT/p-$v.json > /dev/null 2>&1
  python3 - $v $OUT/b-$v.json $OUT/p-$v.json <<'PY'
import json, sys
out = []
for f in sys.argv[2:]:
    d = json.load(open(f))
    for r in d["rows"]:
        if r.get("backend") == "cute":
            out.append("%s %s %.2fus %.1f%%" % (r["case"].replace("bench_", ""), r["status"], (r.get("time") or {}).get("median_s", 0) * 1e6, 100 * (r.get("peak_fraction") or 0)))
print(sys.argv[1].ljust(5), " | ".join(out))
PY
done
