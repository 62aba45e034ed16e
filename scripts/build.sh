#!/usr/bin/env bash
# Builds everything (debug, with tests) and fails on any compiler warning of ours.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --build-tests "$@" 2>&1 | tee "$log" | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build failed"; exit 1; }
# PortAudio's pkg-config '-pthread' notice is not a compiler warning of ours.
if grep -E 'warning:' "$log" | grep -v 'prohibited flag' ; then
  echo "build has warnings (see above): the build must be warning-free"; exit 1
fi
