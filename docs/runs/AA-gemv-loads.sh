#!/bin/bash
# temporary experiment: the cute GEMV's a/sfa load instruction, ABAB over variants
E=stage/exp
export KHOST_PLUGIN_PATH=""
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for rep in 1 2; do
  for v in $VARIANTS; do
    cp $E/cute_$v.so $E/plugins/cute/cute.so
    echo "== $v rep $rep"
    $E/khost --suite $E/gemv4.ini --backends cute --max-time 0.5 --json $OUT/$v-$rep.json 2>&1 | grep -E '^case|^  cute +cuda|copy peak'
  done
done
