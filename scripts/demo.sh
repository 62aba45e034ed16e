#!/usr/bin/env bash
# The main job: a complete local call. Builds the release binary and runs `polyvoice demo`, which starts
# the embedded reference bridge, calls it with generated speech, records both sides under out/demo/ and
# prints setup time, call statistics and PESQ/STOI. Extra arguments go to `polyvoice demo` (e.g. --agent echo).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product polyvoice 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
exec .build/release/polyvoice demo "$@"
