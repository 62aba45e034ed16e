#!/usr/bin/env bash
# Runs every benchmark in release mode; each prints its figures and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
for bench in CodecBench MediaBench DTLSBench AudioProcessingBench ConnectBench; do
  echo "== $bench"
  ".build/release/$bench"
done
echo "== JitterEval"
bash Benchmarks/JitterEval/run.sh
# issue 7: concurrent echo calls against `polyvoice bridge` (a child process); about 3 minutes.
echo "== BridgeLoad"
.build/release/BridgeLoad
