#!/usr/bin/env bash
# Builds one libFuzzer harness of the fuzz/ package with the fuzzer and address sanitizers and runs
# it for a given time, starting from its seed corpus. Usage: scripts/fuzz.sh <Harness> <seconds>
# (e.g. scripts/fuzz.sh FuzzRTP 600). New inputs go to fuzz/work/<Harness>/ (not committed); a crash
# is saved as fuzz/work/artifacts/<Harness>/crash-* and the script exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/fuzz.sh <Harness> <seconds>}
seconds=${2:?usage: scripts/fuzz.sh <Harness> <seconds>}
[ -d "fuzz/Sources/$name" ] || { echo "no harness fuzz/Sources/$name"; exit 2; }

echo "== building $name (-sanitize=fuzzer,address)"
# `--sanitize` instruments only the fuzz package's own targets and links libFuzzer's main();
# `-Xswiftc -sanitize=…` also instruments the main package's modules, where the parsers live.
flags=(--package-path fuzz -c debug --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address)
# ld.gold prints one harmless 'Cannot export local symbol __asan_*' line per ASan helper: hide them.
swift build "${flags[@]}" --product "$name" 2>&1 \
  | grep -vE 'Cannot export local symbol|prohibited flag|^\[[0-9]+/[0-9]+\]'
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build failed"; exit 1; }
binary="$(swift build "${flags[@]}" --show-bin-path)/$name"

work="fuzz/work/$name"
artifacts="fuzz/work/artifacts/$name"
mkdir -p "$work" "$artifacts" "fuzz/corpus/$name"
log="fuzz/work/$name.log"
echo "== running $name for ${seconds}s (seeds: fuzz/corpus/$name, log: $log)"
# New inputs are written to the first corpus directory (work), the seeds are only read.
"$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
  -timeout=10 -rss_limit_mb=2048 "$work" "fuzz/corpus/$name" >"$log" 2>&1
status=$?

grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done [0-9]+ runs' "$log"
grep -E 'NEW|REDUCE|DONE' "$log" | tail -1
if grep -q 'no interesting inputs were found' "$log"; then
  echo "== $name: no coverage feedback (the parser is not instrumented?)"; exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "== $name FOUND A PROBLEM (exit $status):"
  grep -E -A30 'ERROR: (libFuzzer|AddressSanitizer)|Fatal error|SUMMARY' "$log" | head -60
  ls -1 "$artifacts"
  exit 1
fi
echo "== $name: no crash in ${seconds}s"
