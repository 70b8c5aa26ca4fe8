#!/usr/bin/env bash
# The README's "write your own plugin" example must stay true: extract it,
# build it against the public headers alone, drop it into a folder, run khost.
set -euo pipefail
. "$(dirname "$0")/readme_example.sh"
readme_example '^\/\* my_transpose.c \*\/' '^KHOST_PLUGIN_DEFINE' "$work/my_transpose.c"
mkdir "$work/plugins"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -I"$src/core/include" \
  "$work/my_transpose.c" -o "$work/plugins/my_transpose.so"
out=$("$exe" --plugin-dir "$work/plugins" --op copy_transpose --backends my_transpose --max-time 0.01 --warmup 0)
echo "$out"
passes=$(grep -c '^  my_transpose  *cpu  *PASS' <<<"$out")
[ "$passes" -eq 3 ] || { echo "expected 3 PASS rows for my_transpose, got $passes"; exit 1; }
echo "README plugin example: built and passed $passes cases"
