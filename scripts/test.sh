#!/usr/bin/env bash
# The whole test suite: warning-free build, then every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# CI device test: a PulseAudio null sink and source give PortAudio real-time paced devices; with
# POLYVOICE_DEVICE_TEST=1 the device tests run (and fail if no device appears) instead of skipping.
eval "$(bash scripts/pulse-null.sh start)"
trap 'bash scripts/pulse-null.sh stop' EXIT
POLYVOICE_DEVICE_TEST=1 swift test --skip-build 2>&1 | grep -vE 'prohibited flag'
exit "${PIPESTATUS[0]}"
