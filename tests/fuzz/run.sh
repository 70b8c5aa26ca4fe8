#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time. A crash, a leak, a sanitizer
# report or an input that takes longer than 10 s fails it (libFuzzer's exit
# status), and the input is kept as FUZZ_ARTIFACTS/crash-* (default: the current
# folder); `TARGET FILE` replays it. New corpus entries go to a temporary folder,
# removed at the end; the seed folders are only read.
# Usage: tests/fuzz/run.sh TARGET SECONDS [SEED_FOLDER...]
set -euo pipefail
target=$1 seconds=$2
shift 2
corpus=$(mktemp -d "${TMPDIR:-/tmp}/khost-fuzz-corpus-XXXXXX")
trap 'rm -rf "$corpus"' EXIT
"$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
  -artifact_prefix="${FUZZ_ARTIFACTS:-$PWD}/" "$corpus" "$@"
