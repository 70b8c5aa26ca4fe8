#!/usr/bin/env bash
# EXPERIMENT run U: one-warp triton_aot GEMV variants (4 rows a program, 64 registers), forced by KHOST_TRITON_VARIANT.
set -u
export KHOST_SUITE_PATH=$PWD/suites
K=stage/build/khost
nvidia-smi --query-gpu=name --format=csv,noheader
for v in gemv_m4_k1024_w1 gemv_split2_m4_k1024_w1 gemv_split4_m4_k1024_w1 gemv_split2_m4_k512_w1; do
  KHOST_TRITON_VARIANT=$v $K --suite correctness --op nvfp4_gemv --backends triton_aot --max-time 0.02 > $OUT/c.txt 2>&1; c=$?
  KHOST_TRITON_VARIANT=$v $K --suite gpumode_nvfp4 --case 'test_*' --backends triton_aot --max-time 0.02 > $OUT/g.txt 2>&1; g=$?
  echo "$v correctness exit $c: $(grep ^summary $OUT/c.txt) | gpumode test exit $g: $(grep ^summary $OUT/g.txt)"
done
for v in shipped gemv_m4_k1024_w1 gemv_split2_m4_k1024_w1 gemv_split4_m4_k1024_w1 gemv_split2_m4_k512_w1 gemv_m16_k1024_w4 gemv_split2_m8_k2048_w2 shipped; do
  if [ $v = shipped ]; then unset KHOST_TRITON_VARIANT; else export KHOST_TRITON_VARIANT=$v; fi
  $K --suite gpumode_nvfp4 --case 'bench_*' --backends cute,triton_aot --json $OUT/b.json > /dev/null 2>&1
  $K --suite performance --op nvfp4_gemv --backends triton_aot --json $OUT/p.json > /dev/null 2>&1
  python3 - $v $OUT/b.json $OUT/p.json <<'PY'
import json, sys
out = []
for f in sys.argv[2:]:
    for r in json.load(open(f))["rows"]:
        if r["backend"] in ("triton_aot", "cute") and r["status"] in ("PASS", "SKIP", "FAIL"):
            t = r.get("time") or {}
            tag = "" if r["backend"] == "triton_aot" else "cute "
            out.append("%s%s %s %.2fus %.1f%%" % (tag, r["case"].replace("bench_", ""), r["status"], t.get("median_s", 0) * 1e6, 100 * (r.get("peak_fraction") or 0)))
print(sys.argv[1].ljust(24), " | ".join(out))
PY
done
