#!/usr/bin/env bash
# Peak and 15-second RSS of one `polyvoice call` with file audio (docs/MEMORY.md), and `--version`'s peak.
# Usage: scripts/call_memory.sh CLIENT_BINARY [BRIDGE_BINARY] [LABEL]
# The bridge (BRIDGE_BINARY, default CLIENT_BINARY) runs the echo agent on a free 127.0.0.1 port; the call sends
# 2.4 s of espeak speech (scripts/make-speech.sh) for 20 s. Peak is wait4's ru_maxrss (/usr/bin/time -f %M);
# scripts/memory_breakdown.py's table of the call 15 s in goes to $TMPDIR/call-memory-LABEL.breakdown.
# Run it under the shared lock (flock /tmp/pv-heavy.lock …) and note /proc/loadavg, which it prints.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
client=$1
bridge=${2:-$1}
label=${3:-call}
dir=$(mktemp -d)
trap 'kill "$bridge_pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
bash "$root/scripts/make-speech.sh" "$dir/speech.wav" en-us "The birch canoe slid on the smooth planks."
POLYVOICE_BRIDGE_TOKEN=memory-token "$bridge" bridge --port 0 --agent echo > "$dir/bridge.out" 2>/dev/null &
bridge_pid=$!
for _ in $(seq 100); do grep -q "127.0.0.1:" "$dir/bridge.out" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o "127.0.0.1:[0-9]*" "$dir/bridge.out" | head -1 | cut -d: -f2)
[ -n "$port" ] || { echo "call_memory: the bridge did not start"; exit 1; }
POLYVOICE_WEBRTC_TOKEN=memory-token /usr/bin/time -f "%M" -o "$dir/peak" "$client" call \
  --bridge "http://127.0.0.1:$port/" --input "$dir/speech.wav" --output "$dir/out.wav" --duration 20 --json \
  > "$dir/call.json" 2> "$dir/call.err" &
time_pid=$!
sleep 15
call_pid=$(pgrep -P "$time_pid")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$call_pid/status")
python3 "$root/scripts/memory_breakdown.py" "$call_pid" > "${TMPDIR:-/tmp}/call-memory-$label.breakdown"
wait "$time_pid" || { echo "call_memory: the call failed: $(tail -2 "$dir/call.err")"; exit 1; }
grep -q '"type":"summary"' "$dir/call.json" || { echo "call_memory: no call summary"; exit 1; }
version_peak=$(/usr/bin/time -f "%M" "$client" --version 2>&1 >/dev/null | tail -1)
echo "$label: call peak $(cat "$dir/peak") KB, RSS at 15 s $rss KB, --version peak $version_peak KB;" \
  "loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
