#!/usr/bin/env bash
# A PulseAudio server with only a null sink and a null (silent) source: real-time paced audio devices
# on machines without a sound card, for the device test (see PLATFORM-NOTES "Audio without a sound
# card"). The source is module-null-source with a 20 ms latency cap, not the sink's monitor: an idle
# monitor (like module-sine-source) delivers capture in bursts of up to 2 s through ALSA's pulse plugin.
# A 20 ms loopback keeps the null sink running at low latency: an idle null sink wakes only every ~2 s,
# which held new playback streams for up to 2 s.
#
#   eval "$(bash scripts/pulse-null.sh start)"   # starts it; prints the exports that point ALSA at it
#   bash scripts/pulse-null.sh stop              # stops it (uses the exported POLYVOICE_PULSE_DIR)
#
# Runs as the current user (also as root) in its own directory (a new /tmp/polyvoice-pulse.XXXXXX
# unless POLYVOICE_PULSE_DIR is set), so parallel runs and any other PulseAudio stay apart.
set -euo pipefail

start() {
    dir="${POLYVOICE_PULSE_DIR:-$(mktemp -d /tmp/polyvoice-pulse.XXXXXX)}"
    stop_server
    mkdir -p "$dir/runtime" "$dir/state"
    chmod 700 "$dir" "$dir/runtime"
    cat >"$dir/server.pa" <<PA
load-module module-null-sink sink_name=polyvoice_null rate=48000 channels=2
load-module module-native-protocol-unix socket=$dir/native auth-anonymous=1
set-default-sink polyvoice_null
load-module module-null-source source_name=polyvoice_silence rate=48000 channels=1 max_latency_msec=20
set-default-source polyvoice_silence
load-module module-loopback source=polyvoice_silence sink=polyvoice_null latency_msec=20 source_dont_move=true sink_dont_move=true
PA
    # ALSA's default pcm and ctl → PulseAudio (libasound2-plugins); the normal alsa.conf stays first.
    cat >"$dir/asoundrc" <<ALSA
pcm.!default { type pulse }
ctl.!default { type pulse }
ALSA
    HOME="$dir" XDG_RUNTIME_DIR="$dir/runtime" PULSE_RUNTIME_PATH="$dir/runtime" PULSE_STATE_PATH="$dir/state" \
        pulseaudio -n -F "$dir/server.pa" --daemonize=no --system=false --exit-idle-time=-1 \
        --disallow-exit --use-pid-file=no --log-target=file:"$dir/pulse.log" >/dev/null 2>&1 &
    echo $! >"$dir/pid"
    for _ in $(seq 1 50); do
        [ -S "$dir/native" ] && break
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || { echo "pulse-null: pulseaudio exited; see $dir/pulse.log" >&2; tail -5 "$dir/pulse.log" >&2; exit 1; }
        sleep 0.1
    done
    [ -S "$dir/native" ] || { echo "pulse-null: no socket after 5 s; see $dir/pulse.log" >&2; exit 1; }
    echo "export POLYVOICE_PULSE_DIR=$dir"
    echo "export PULSE_SERVER=unix:$dir/native"
    echo "export ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:$dir/asoundrc"
}

stop_server() {
    if [ -f "$dir/pid" ]; then
        pid="$(cat "$dir/pid")"
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid"
            for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        fi
        rm -f "$dir/pid"
    fi
}

case "${1:-}" in
start) start ;;
stop)
    dir="${POLYVOICE_PULSE_DIR:?pulse-null: POLYVOICE_PULSE_DIR is not set (eval the output of start)}"
    stop_server
    rm -rf "$dir"
    ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
