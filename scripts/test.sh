#!/usr/bin/env bash
# The whole test suite: warning-free build, every test target, then the Debian package test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# CI device test: a PulseAudio null sink and source give PortAudio real-time paced devices; with
# POLYVOICE_DEVICE_TEST=1 the device tests run (and fail if no device appears) instead of skipping.
eval "$(bash scripts/pulse-null.sh start)"
trap 'bash scripts/pulse-null.sh stop' EXIT
# The later steps run even when a suite fails, so one run reports everything. Serially: the suites start real
# bridges, coturn, Chromium and real-time calls, and all of them at once on two cores time out (plain `swift test`).
set +e
POLYVOICE_DEVICE_TEST=1 swift test --skip-build --no-parallel 2>&1 | grep -vE 'prohibited flag'
tests=${PIPESTATUS[0]}
set -e
# A package of its own that depends on this one by path builds and calls the bridge.
sample=0
bash scripts/sample-package-test.sh || sample=$?
# The Debian package: release build, lintian, then installed and run in a Debian 12 root without Swift.
package=0
{ bash scripts/package.sh && bash scripts/package-test.sh; } || package=$?
[ "$tests" -eq 0 ] || { echo "test: swift test failed ($tests)"; exit "$tests"; }
[ "$sample" -eq 0 ] || { echo "test: the example package test failed ($sample)"; exit "$sample"; }
[ "$package" -eq 0 ] || { echo "test: the package test failed ($package)"; exit "$package"; }
