#!/usr/bin/env bash
# ReceiverCompare: our receiver beside libwebrtc's (headless Chromium) on one sender and one impairment relay.
# Runs run.py inside a network namespace of its own with only a loopback interface, so no process of the
# benchmark (bridge, relay, our client, Chromium) can send to anything but 127.0.0.0/8. Needs root (ip netns),
# a release build (scripts/bench.sh builds it) and Debian's chromium (scripts/setup.sh). Options go to run.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
namespace="pv-receivers-$$"
ip netns add "$namespace"
trap 'ip netns delete "$namespace"' EXIT
ip -n "$namespace" link set lo up
ip netns exec "$namespace" .venv/bin/python Benchmarks/ReceiverCompare/run.py "$@"
