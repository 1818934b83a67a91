#!/bin/sh
# validate-mime.sh FILE GLOB TYPE: checks a shared-mime-info package the way the system
# reads it: well-formed XML, and update-mime-database maps GLOB to TYPE without complaint.
set -eu

file=$1
glob=$2
type=$3

if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout "$file"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mime/packages"
cp "$file" "$tmp/mime/packages/"

# A private data dir, so the tool neither touches nor warns about the real ones.
XDG_DATA_HOME=$tmp update-mime-database "$tmp/mime" >"$tmp/log" 2>&1
if [ -s "$tmp/log" ]; then
  cat "$tmp/log" >&2
  exit 1
fi

if ! awk -F: -v type="$type" -v glob="$glob" '$2 == type && $3 == glob { found = 1 } END { exit !found }' "$tmp/mime/globs2"; then
  echo "$glob is not mapped to $type:" >&2
  cat "$tmp/mime/globs2" >&2
  exit 1
fi
