#!/usr/bin/env bash
# Temporary experiment (not committed): L2 hints on reduce_sum / copy_transpose loads.
export KHOST_SUITE_PATH=$PWD/suites KHOST_PLUGIN_PATH=""
B=stage/build
cp $B/plugins/cute/cute.so /tmp/cute_ship.so
cp $B/plugins/triton_aot/triton_aot.so /tmp/tri_ship.so
nvidia-smi --query-gpu=name --format=csv,noheader
set_cfg() { cp "$1" $B/plugins/cute/cute.so; cp "$2" $B/plugins/triton_aot/triton_aot.so; }
run() {
  local tag=$1; shift
  echo "== $tag"
  $B/khost --backends cute,triton_aot --json $OUT/$tag.json "$@" 2>&1 | grep -E '^case|^  (cute|triton_aot) +cuda|copy'
}
for rep in 1 2; do
  set_cfg /tmp/cute_ship.so /tmp/tri_ship.so
  run A$rep-perf --suite performance --op reduce_sum,copy_transpose
  run A$rep-floor --suite read_floor
  set_cfg stage/exp/cute_plain.so stage/exp/triton_nh.so
  run B$rep-perf --suite performance --op reduce_sum,copy_transpose
  run B$rep-floor --suite read_floor
  set_cfg stage/exp/cute_nc.so /tmp/tri_ship.so
  run C$rep-perf --suite performance --op reduce_sum,copy_transpose
  run C$rep-floor --suite read_floor
done
set_cfg /tmp/cute_ship.so /tmp/tri_ship.so
