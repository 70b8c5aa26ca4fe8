#!/bin/bash
# temporary experiment: cute GEMV variants: correctness first, then timings in turn (ABAB)
E=stage/exp
export KHOST_PLUGIN_PATH="" KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name --format=csv,noheader
summ() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
rows = [r for r in d["rows"] if r["backend"] == "cute"]
print(sys.argv[1].ljust(12), "copy %.0f |" % d["run"]["peak_gbps"], " | ".join("%s %s %.2fus %.1f%% %s" % (
    r["case"].replace("bench_", ""), r["status"], (r.get("time") or {}).get("median_s", 0) * 1e6,
    100 * (r.get("peak_fraction") or 0), r.get("kernel") or r.get("variant") or "") for r in rows))
PY
}
for v in $CHECK; do
  cp $E/cute_$v.so $E/plugins/cute/cute.so
  $E/khost --suite correctness --op nvfp4_gemv --backends cute --max-time 0.02 > /tmp/c.txt 2>&1; c=$?
  $E/khost --suite gpumode_nvfp4 --backends cute --max-time 0.05 > /tmp/g.txt 2>&1; g=$?
  echo "$v correctness exit $c: $(grep ^summary /tmp/c.txt) | gpumode exit $g: $(grep ^summary /tmp/g.txt)"
  grep -E "^  cute .*(FAIL|ERROR|CRASH)" /tmp/c.txt /tmp/g.txt | head -5
done
for rep in 1 2; do
  for v in $VARIANTS; do
    cp $E/cute_$v.so $E/plugins/cute/cute.so
    rm -f /tmp/t.json
    $E/khost --suite $E/gemv4.ini --backends cute --max-time 0.5 --json /tmp/t.json > /tmp/t.txt 2>&1
    summ "$v.$rep" /tmp/t.json | tee -a $OUT/times.txt
  done
done
