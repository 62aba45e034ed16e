#!/usr/bin/env bash
# Sender evaluation: PESQ-WB against Opus bitrate, bandwidth and complexity, clean and at 2/5/10 % loss with FEC.
# Expects SenderEval built (scripts/bench.sh builds release); writes out/sender-eval/.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python Benchmarks/SenderEval/evaluate.py "$@"
