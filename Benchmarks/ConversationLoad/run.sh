#!/usr/bin/env bash
# Issue 17: the largest number of concurrent scripted calls one `polyvoice test` process runs on this
# machine against `polyvoice bridge --agent script:…` (a child, its CPU counted apart), with every call
# passing, no caller audio late for its tick and no call's audio clock behind real time by more than
# 40 ms (no CPU-caused error in the caller's timings: `audio_clock_lag_ms`), and the measured response
# latency within 150 ms of the agent's configured --reply-latency at p95.
# The bridge's per-client request limit is lifted (every call comes from 127.0.0.1), as in BridgeLoad.
# Usage: Benchmarks/ConversationLoad/run.sh [N…]   (default 25 50 100 150; POLYVOICE=path overrides the binary)
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${POLYVOICE:-.build/release/polyvoice}
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(25 50 100 150)
reply_ms=600
work=$(mktemp -d)
# POLYVOICE_BENCH_KEEP=DIR keeps the scenario, the bridge output and every report.json in DIR.
keep=${POLYVOICE_BENCH_KEEP:-}
trap 'kill "$bridge_pid" 2>/dev/null; wait "$bridge_pid" 2>/dev/null; if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$work"/. "$keep"/; fi; rm -rf "$work"' EXIT
mkdir -p "$work/prompts"
for i in 1 2 3; do sox -n -r 48000 -b 16 -c 1 "$work/prompts/$i.wav" synth 1.5 sine 440 vol 0.25; done
cat >"$work/scenario.json" <<'JSON'
{"name": "load", "steps": [
  {"say": "Hello, I would like to book a table."}, {"wait_for_agent": {"timeout_s": 10}},
  {"say": "Four people at eight, please."}, {"wait_for_agent": {"timeout_s": 10}},
  {"say": "Thank you."}, {"wait_for_agent": {"timeout_s": 10}}]}
JSON
token=bench-token-$RANDOM$RANDOM
POLYVOICE_BRIDGE_TOKEN=$token "$bin" bridge --host 127.0.0.1 --port 0 --agent "script:$work/prompts" \
  --reply-latency $reply_ms --max-calls 100000 --rate 100000 >"$work/bridge.out" 2>/dev/null &
bridge_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$work/bridge.out" 2>/dev/null && break; sleep 0.2; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/bridge.out" | head -1 | cut -d: -f2)
[ -n "$port" ] || { echo "the bridge did not start"; exit 1; }
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "| calls | passed | calls late (CPU) | worst clock lag ms | latency − reply p50 / p95 ms | bridge CPU s | test CPU s | wall s |"
echo "|---|---|---|---|---|---|---|---|"
best=0
results=()
for n in "${steps[@]}"; do
  before=$(cpu "$bridge_pid")
  start=$(date +%s%N)
  test_cpu=$( { TIMEFORMAT='%U %S'; time POLYVOICE_WEBRTC_TOKEN=$token "$bin" test "$work/scenario.json" \
    --environment "local:$port" --calls "$n" --rate 25 --report "$work/r$n" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}')
  wall=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {print (b - a) / 1e9}')
  bridge_cpu=$(awk -v a="$before" -v b="$(cpu "$bridge_pid")" -v t="$ticks" 'BEGIN {print (b - a) / t}')
  line=$(python3 - "$work/r$n/report.json" "$reply_ms" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); reply = float(sys.argv[2])
lat = sorted(l - reply for c in r["calls"] for t in c["turns"] if (l := t.get("response_latency_ms")) is not None)
pick = lambda p: lat[max(0, min(len(lat) - 1, -(-len(lat) * p // 100) - 1))] if lat else float("nan")
m = [c["measurements"] for c in r["calls"]]
late = sum(1 for x in m if x["caller_underrun_ms"] > 0 or x["audio_clock_lag_ms"] > 40)
lag = max((x["audio_clock_lag_ms"] for x in m), default=0)
print(r["summary"]["passed"], len(r["calls"]), late, round(pick(50), 1), round(pick(95), 1), round(lag, 1))
PY
)
  read -r passed calls late p50 p95 lag <<<"$line"
  printf '| %s | %s/%s | %s | %s | %s / %s | %.1f | %.1f | %.1f |\n' "$n" "$passed" "$calls" "$late" "$lag" "$p50" "$p95" "$bridge_cpu" "$test_cpu" "$wall"
  results+=("{\"calls\": $n, \"passed\": $passed, \"late\": $late, \"max_clock_lag_ms\": $lag, \"p50_over_reply_ms\": $p50, \"p95_over_reply_ms\": $p95, \"bridge_cpu_s\": $(printf '%.2f' "$bridge_cpu"), \"test_cpu_s\": $test_cpu}")
  if [ "$passed" = "$calls" ] && [ "$late" = 0 ] && python3 -c "import sys; sys.exit(0 if float('$p95') <= 150 else 1)"; then best=$n; fi
done
echo "RESULT_JSON {\"benchmark\": \"ConversationLoad\", \"max_concurrent_calls_ok\": $best, \"target\": 100, \"reply_latency_ms\": $reply_ms, \"steps\": [$(IFS=,; echo "${results[*]}")]}"
