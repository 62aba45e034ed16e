#!/usr/bin/env bash
# Issue 19: a UDP flood on the bridge's shared media port while echo calls run through it. The same test
# `make test` runs for 2.5 s with 4 calls (Tests/PolyVoiceBridgeTests/MediaPortFloodTests.swift), here for
# 10 s at 20,000 datagrams/s with 20 calls (random bytes, binding requests naming no call, DTLS ClientHellos
# and SRTP from unknown addresses, SRTP with bad tags spoofed from the callers' own addresses on a raw
# socket: root). Passes when no call lost a packet and /metrics counted every flooded datagram by category.
# It runs the debug test build (the bridge, its calls and the flooder in one process; slower code than
# release, so a harsher test). Ends with the test's RESULT_JSON line.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p out
swift build --build-tests 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
POLYVOICE_FLOOD_SECONDS=${SECONDS_FLOOD:-10} POLYVOICE_FLOOD_CALLS=${CALLS:-20} POLYVOICE_FLOOD_RATE=${RATE:-20000} \
  POLYVOICE_FLOOD_REPORT=1 swift test --skip-build --no-parallel --filter MediaPortFloodTests 2>&1 |
  grep -vE 'prohibited flag' | tee out/mediaflood.log
grep -q 'RESULT_JSON' out/mediaflood.log
grep 'RESULT_JSON' out/mediaflood.log | tail -1
