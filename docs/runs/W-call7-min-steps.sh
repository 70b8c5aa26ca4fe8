set -u
export KHOST_SUITE_PATH=$PWD/suites
KHOST_EXP_MIN_STEPS=1 stage/build/khost --suite correctness --op nvfp4_gemv --backends cute --max-time 0.1 --json $OUT/correctness-steps1.json > /dev/null 2>&1; echo "correctness min_steps 1 rc $?"
for s in 4 1 4 1; do
  KHOST_EXP_MIN_STEPS=$s stage/build/khost --suite gpumode_nvfp4 --backends cute --json $OUT/steps$s-$RANDOM.json > /dev/null 2>&1; echo "min_steps $s rc $?"
done
