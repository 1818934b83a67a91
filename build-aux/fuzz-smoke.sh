#!/usr/bin/env bash
# fuzz-smoke.sh: builds the libFuzzer targets (clang, ASan, UBSan) in a build directory of
# their own and runs each for FUZZ_SECONDS (default 30) from its seed corpus under
# tests/fuzz/corpus/. Fails when any target finds a crash, a leak, undefined behaviour, an
# input slower than 10 s, or when a target is missing.
#   FUZZ_SECONDS=300 build-aux/fuzz-smoke.sh               five minutes per target
#   FUZZ_BUILDDIR=… FUZZ_TARGETS="fuzz-dialect" build-aux/fuzz-smoke.sh
# New inputs go to $FUZZ_BUILDDIR/fuzz-work/, findings to $FUZZ_BUILDDIR/fuzz-artifacts/;
# the seed corpora in the tree are only read.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${FUZZ_BUILDDIR:-$top/_build-fuzz}
seconds=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-fuzz-sse-parser fuzz-dialect fuzz-session}

# Inputs a little larger than the seeds: enough for every parser path, small enough that a
# run does many thousands of executions per second.
max_len () {
  case "$1" in
    fuzz-sse-parser) echo 8192 ;;
    fuzz-dialect) echo 4096 ;;
    fuzz-session) echo 16384 ;;
    *) echo 4096 ;;
  esac
}

command -v clang >/dev/null || { echo "fuzz-smoke: clang is not installed" >&2; exit 1; }

if [ ! -f "$builddir/build.ninja" ]; then
  CC=clang meson setup "$builddir" "$top" -Dfuzzing=true -Dgui=disabled -Dwerror=true >/dev/null
fi
paths=()
for t in $targets; do paths+=("tests/fuzz/$t"); done
ninja -C "$builddir" "${paths[@]}" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

failed=0
for t in $targets; do
  exe="$builddir/tests/fuzz/$t"
  work="$builddir/fuzz-work/$t"
  artifacts="$builddir/fuzz-artifacts"
  log="$builddir/fuzz-artifacts/$t.log"
  mkdir -p "$work" "$artifacts"

  if [ ! -x "$exe" ]; then
    echo "fuzz-smoke: $t was not built (is CC clang?)" >&2
    failed=1
    continue
  fi

  if "$exe" "$work" "$top/tests/fuzz/corpus/$t" \
       -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$artifacts/$t-" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz-smoke: $t: ${runs:-?} inputs in ${seconds} s, no finding"
  else
    echo "fuzz-smoke: $t FAILED; log: $log" >&2
    grep -E "ERROR|runtime error|SUMMARY|Test unit written|abort|assertion" "$log" | head -20 >&2 || true
    failed=1
  fi
done

exit "$failed"
