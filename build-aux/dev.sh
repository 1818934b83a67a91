#!/usr/bin/env bash
# dev.sh: the two set-up commands of the README.
#   build-aux/dev.sh run [ARGS…]   install what is missing, build, start the app
#                                  (demo relays when no endpoint is configured)
#   build-aux/dev.sh test          install what is missing, build, run the whole test suite
# Debian 12. Needs root or sudo only when packages are missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/_build}

packages=(meson ninja-build pkg-config gcc libgtk-4-dev libadwaita-1-dev libsoup-3.0-dev
          libjson-glib-dev libsecret-1-dev gettext glib-networking desktop-file-utils
          appstream xvfb xauth imagemagick openssl fonts-noto-cjk)

install_missing () {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build () {
  if [ ! -f "$builddir/build.ninja" ]; then
    meson setup "$builddir" "$top" ${MESON_ARGS:-}
  fi
  ninja -C "$builddir"
}

# The HAR export is checked against the HAR schema with the npm har-validator package; the
# test skips that check when it is missing, so this is best effort.
install_har_validator () {
  if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 &&
     [ ! -d "$top/tests/har/node_modules" ]; then
    (cd "$top/tests/har" && npm ci --no-audit --no-fund) ||
      echo "Could not install har-validator; the HAR schema check will be skipped" >&2
  fi
}

# GUI tests and the app need a display: start a private Xvfb when there is none.
ensure_display () {
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    local n=$(( 90 + RANDOM % 100 ))
    Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb_pid=$!
    trap 'kill $xvfb_pid 2>/dev/null || true' EXIT
    export DISPLAY=":$n"
    for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
  fi
}

cmd=${1:-}
shift || true

case "$cmd" in
  run)
    install_missing
    build
    export GSETTINGS_SCHEMA_DIR="$builddir/data"
    # With no endpoint configured yet, start straight into the simulated demo relays.
    config="${XDG_CONFIG_HOME:-$HOME/.config}/relayscope/endpoints.json"
    if [ $# -eq 0 ] && [ ! -s "$config" ]; then
      set -- --demo
    fi
    exec "$builddir/src/ui/relayscope" "$@"
    ;;
  test)
    install_missing
    install_har_validator
    build
    ensure_display
    export GDK_BACKEND=x11
    meson test -C "$builddir" --print-errorlogs "$@"
    ;;
  *)
    echo "usage: build-aux/dev.sh run|test" >&2
    exit 2
    ;;
esac
