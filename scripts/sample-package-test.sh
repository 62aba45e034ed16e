#!/usr/bin/env bash
# Samples/ExamplePackage depends on this repository by path, as another SwiftPM package would: build it
# (in its own .build, so it compiles the PolyVoice product the way a user's package does) and call the
# project's reference bridge with it. Run by `make test` after scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bridge_binary=$root/.build/debug/polyvoice
[ -x "$bridge_binary" ] || { echo "sample-package-test: build first (scripts/build.sh)"; exit 1; }

start=$(date +%s)
(cd Samples/ExamplePackage && swift build 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true)
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "sample-package-test: the example package does not build"; exit 1; }
echo "sample-package-test: built Samples/ExamplePackage in $(( $(date +%s) - start )) s"

token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
log=$(mktemp)
POLYVOICE_BRIDGE_TOKEN=$token "$bridge_binary" bridge --port 0 > "$log" 2>&1 &
bridge=$!
trap 'kill "$bridge" 2>/dev/null || true; wait "$bridge" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q 'listening on' "$log" && break; sleep 0.1; done
url=$(sed -n 's/^bridge: listening on \(http[^ ]*\).*/\1/p' "$log")
[ -n "$url" ] || { cat "$log"; echo "sample-package-test: the bridge did not start"; exit 1; }
sleep 0.3  # let the bridge install its SIGTERM handler before the trap may send one
if POLYVOICE_WEBRTC_TOKEN=$token Samples/ExamplePackage/.build/debug/EchoCheck "$url"; then
  echo "sample-package-test: EchoCheck called the bridge and heard the echo"
else
  echo "sample-package-test: EchoCheck failed"; exit 1
fi
