set -u
export KHOST_SUITE_PATH=$PWD/suites
run() { # name dtype variant
  KHOST_TRITON_VARIANT=$3 stage/build/khost --suite performance --case "reduce_sum_$2_*" --backends $4 --json $OUT/$1.json > /dev/null 2>&1
  python3 -c "
import json,sys
for r in json.load(open('$OUT/$1.json'))['rows']:
    if r['device']=='cuda' and r['backend']!='reference': print('$1', r['case'], r['backend'], r['status'], r.get('variant'), round(r['time']['median_s']*1e6,2) if r['time']['median_s'] else '-', round(100*(r['peak_fraction'] or 0),1))
"
}
for dt in fp32 fp16 bf16; do
  run rule_$dt $dt "" cute,triton_aot
  for v in m1_n16384_w16 m1_n8192_w8 m1_n16384_w8 m1_n16384_w32; do run ${v}_$dt $dt reduce_${dt}_${v}_exp triton_aot; done
  run rule2_$dt $dt "" cute,triton_aot
done
