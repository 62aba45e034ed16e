#!/usr/bin/env bash
# The whole test suite: warning-free build, then every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
swift test --skip-build --no-parallel 2>&1 | grep -vE 'prohibited flag'
exit "${PIPESTATUS[0]}"
