#!/usr/bin/env bash
# The main job: a demo of PolyVoice (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product polyvoice 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
exec .build/release/polyvoice demo "$@"
