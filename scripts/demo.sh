#!/usr/bin/env bash
# The main job: a complete local call. Builds the release binary and runs `polyvoice demo`, which starts
# the embedded reference bridge, calls it with generated speech, records both sides under out/demo/ and
# prints setup time, call statistics and PESQ/STOI. Extra arguments go to `polyvoice demo` (e.g. --agent echo).
# Then a conversation test (`polyvoice test`) of the same agent's prompts: Samples/ConversationTest's
# scenario against `polyvoice bridge --agent script:…`, with its report in out/demo/conversation/.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product polyvoice 2>&1 | grep -vE 'prohibited flag|^\[[0-9]+/[0-9]+\]' || true
bin=.build/release/polyvoice
"$bin" demo "$@"
[ -d out/demo/script ] || exit 0  # the echo agent has no prompts to answer a conversation with

echo
echo "Conversation test: Samples/ConversationTest/book-a-table.yaml against the script agent…"
token=demo-$RANDOM$RANDOM$RANDOM
log=$(mktemp)
POLYVOICE_BRIDGE_TOKEN=$token "$bin" bridge --host 127.0.0.1 --port 0 --agent script:out/demo/script \
  --reply-latency 400 --yield-ms 700 >"$log" 2>/dev/null &
bridge=$!
trap 'kill "$bridge" 2>/dev/null; wait "$bridge" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | head -1 | cut -d: -f2)
[ -n "$port" ] || { echo "demo: the bridge did not start"; exit 4; }
rm -rf out/demo/conversation
status=0
POLYVOICE_WEBRTC_TOKEN=$token "$bin" test Samples/ConversationTest/book-a-table.yaml \
  --environment "local:$port" --report out/demo/conversation || status=$?
echo "Report: out/demo/conversation/report.json, call-0.wav (caller left, agent right),"
echo "        call-0-timeline.png, summary-latency.png (exit $status: 0 all expectations held, 6 one failed)"
