set -u
export KHOST_SUITE_PATH=$PWD/suites
run() { # name dtype variant backends
  KHOST_TRITON_VARIANT=$3 stage/build/khost --suite performance --case "reduce_sum_$2_*" --backends $4 --json $OUT/$1.json > /dev/null 2>&1
  python3 -c "
import json,sys
for r in json.load(open('$OUT/$1.json'))['rows']:
    if r['device']=='cuda' and r['backend']!='reference': print('$1', r['case'], r['backend'], r['status'], r.get('variant'), round(r['time']['median_s']*1e6,2) if r['time']['median_s'] else '-', round(100*(r['peak_fraction'] or 0),1))
"
  rm -f $OUT/$1.json
}
for dt in fp32 fp16 bf16; do
  run rule_$dt $dt "" cute,triton_aot
  run m1_n8192_w8_$dt $dt reduce_${dt}_m1_n8192_w8_exp triton_aot
  run rule2_$dt $dt "" triton_aot
  run m1_n8192_w8b_$dt $dt reduce_${dt}_m1_n8192_w8_exp triton_aot
done
