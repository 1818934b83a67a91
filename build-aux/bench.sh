#!/bin/sh
# bench.sh: builds Relayscope in a directory of its own and runs the benchmark: timing
# accuracy against curl and the openai npm client, capacity under concurrent streams,
# painter frame times and session opening. Prints a table; writes bench-results.json in
# the build directory. Talks to 127.0.0.1 only.
#
#   build-aux/bench.sh [relayscope-bench options, e.g. --only accuracy --requests 20]
#   BENCH_BUILDDIR=/tmp/b build-aux/bench.sh     # another build directory
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BENCH_BUILDDIR:-$top/build-bench}

# The desktop app is not measured: leave it out so a tree without GTK builds too.
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" "$top" -Dgui=disabled
fi
ninja -C "$builddir" bench/relayscope-bench src/sim/relayscope-sim

# The official openai client for the comparison; without it that column is left empty.
if [ ! -f "$top/bench/node/node_modules/openai/package.json" ]; then
  if command -v npm >/dev/null 2>&1; then
    (cd "$top/bench/node" && npm ci --no-audit --no-fund) ||
      echo "bench.sh: npm ci failed; the openai client will be left out" >&2
  else
    echo "bench.sh: npm not found; the openai client will be left out" >&2
  fi
fi

exec "$builddir/bench/relayscope-bench" \
  --sim "$builddir/src/sim/relayscope-sim" \
  --node-dir "$top/bench/node" \
  --output "$builddir/bench-results.json" \
  "$@"
