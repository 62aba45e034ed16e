#!/usr/bin/env bash
# Jitter buffer evaluation: ours vs fixed 60 ms vs baresip jbuf vs aiortc on seeded traces (PESQ-WB, STOI, delay).
# Expects polyvoice and JbufHarness built (scripts/bench.sh builds release); writes out/jitter-eval/.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python Benchmarks/JitterEval/evaluate.py "$@"
