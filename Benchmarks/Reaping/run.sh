#!/usr/bin/env bash
# Issue 19: callers that vanish without a DTLS close or DELETE, against a real `polyvoice bridge`
# (--media-timeout 2): `polyvoice call` processes frozen with SIGSTOP, CALLS in all, BATCH at a time. The
# same test `make test` runs with 5 (Tests/CLITests/BridgeReapingProcessTests.swift); each batch must be
# reaped at the media timeout and the bridge's descriptors and live calls must return to baseline.
# Debug build (the test's binaries). Ends with the test's RESULT_JSON line.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p out
swift build --build-tests 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
POLYVOICE_REAP_CALLS=${CALLS:-1000} POLYVOICE_REAP_BATCH=${BATCH:-40} POLYVOICE_REAP_REPORT=1 \
  swift test --skip-build --no-parallel --filter BridgeReapingProcessTests 2>&1 |
  grep -vE 'prohibited flag' | tee out/reaping.log
grep -q 'RESULT_JSON' out/reaping.log
grep 'RESULT_JSON' out/reaping.log | tail -1
