set -u
export KHOST_SUITE_PATH=$PWD/suites
for s in 4 2 1 4; do
  KHOST_EXP_MIN_STEPS=$s stage/build/khost --suite gpumode_nvfp4 --backends cute --json $OUT/steps$s-$RANDOM.json > /dev/null 2>&1; echo "min_steps $s rc $?"
done
