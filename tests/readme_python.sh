#!/usr/bin/env bash
# The README's Python backend example must stay true: extract it, point khost at
# it with KHOST_PYTHON_BACKENDS, and see it pass fp16 and fp32 and decline bf16.
set -euo pipefail
# As a user runs it: python3 on PATH, not the libpython tests/meson.build names for speed.
unset KHOST_PYTHON
. "$(dirname "$0")/readme_example.sh"
readme_example '^# my_numpy.py$' '^     "supports"' "$work/my_numpy.py"
lines=$(wc -l <"$work/my_numpy.py")
[ "$lines" -le 10 ] || { echo "the README's Python backend has $lines lines, more than ten"; exit 1; }
out=$(KHOST_PYTHON_BACKENDS="$work/my_numpy.py" "$exe" --backends my_numpy --op copy_transpose --max-time 0.01 \
  --warmup 0)
echo "$out"
passes=$(grep -c '^  my_numpy  *cpu  *PASS' <<<"$out" || true)
skips=$(grep -c '^  my_numpy  *cpu  *SKIP' <<<"$out" || true)
[ "$passes" -eq 2 ] && [ "$skips" -eq 1 ] || { echo "expected 2 PASS and 1 SKIP for my_numpy: $passes, $skips"; exit 1; }
echo "README Python backend example: $passes cases passed, bf16 declined"
