#!/usr/bin/env bash
# sanitize.sh: builds everything with AddressSanitizer and UndefinedBehaviorSanitizer in a
# build directory of its own and runs the whole test suite there, leaks included (except in
# the GUI tests, see below). Exits non-zero when a test fails, leaks, or hits undefined
# behaviour.
#   build-aux/sanitize.sh                  GUI tests too when there is a display
#   SANITIZE_GUI=0 build-aux/sanitize.sh   engine, CLI and charts only
#   SANITIZE_BUILDDIR=… build-aux/sanitize.sh [MESON TEST ARGS…]
# Timing assertions are skipped (RELAYSCOPE_TIMING_TESTS=0): everything runs several times
# slower here, so they would measure the sanitizers, not the code.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${SANITIZE_BUILDDIR:-$top/_build-sanitize}
gui=${SANITIZE_GUI:-auto}

if [ "$gui" = auto ]; then
  if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then gui=1; else gui=0; fi
fi

options=(-Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true)
if [ "$gui" = 1 ]; then options+=(-Dgui=auto); else options+=(-Dgui=disabled); fi

if [ -f "$builddir/build.ninja" ]; then
  meson configure "$builddir" "${options[@]}" >/dev/null || exit 1
else
  meson setup "$builddir" "$top" "${options[@]}" >/dev/null || exit 1
fi
ninja -C "$builddir" >/dev/null || { ninja -C "$builddir" | tail -40; exit 1; }

# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads glibc 2.36's dynamic TLS for
# modules that GIO loads at run time (gnutls, libproxy) and crashes its own tracer.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export RELAYSCOPE_TIMING_TESTS=0
asan_base=detect_leaks=1:intercept_tls_get_addr=0

if [ $# -gt 0 ]; then
  ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_base} \
    meson test -C "$builddir" --no-rebuild --print-errorlogs --timeout-multiplier 3 "$@"
  exit
fi

# Engine, simulated relay, CLI and charts, leaks included; the checks of data files,
# translations and style run no code of ours and are left to the main run.
# fast_unwind_on_malloc=0: GLib has no frame pointers, so a leak report would otherwise
# stop at g_malloc and name nothing of ours.
ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_base:fast_unwind_on_malloc=0} \
  meson test -C "$builddir" --no-rebuild --print-errorlogs --timeout-multiplier 3 \
    --no-suite gui --no-suite data --no-suite po --no-suite style
status=$?

# The GUI tests: memory errors and undefined behaviour, and G_DEBUG=fatal-criticals from
# the test environment, but no leak check. The slow unwinder deadlocks in libgcc inside
# GTK processes, and without it a leak cannot be traced past GLib, so our leaks and the
# known third-party ones (GLib abandons its first quark block when the table grows; a
# module unloaded before exit leaves 128 bytes that cannot be symbolised) look alike.
if [ "$gui" = 1 ]; then
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:intercept_tls_get_addr=0} \
    meson test -C "$builddir" --no-rebuild --print-errorlogs --timeout-multiplier 3 --suite gui \
    || status=1
fi

exit "$status"
