"""The reference bridge's echo as an independent WebRTC caller hears it: aiortc (Tests/Interop/aiortc_peer.py)
calls `polyvoice bridge --agent echo` on 127.0.0.1 over a clean path, sends each voice (looped) and records what
comes back; PESQ-WB of one loop of it (found by cross-correlation after the first second) against the voice.

Usage: python echo_aiortc.py [--polyvoice PATH] [--seconds S] [--bridge-args '...'] [--out DIR]
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
from scipy.signal import resample_poly

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
_spec = importlib.util.spec_from_file_location("sender_evaluate", os.path.join(HERE, "evaluate.py"))
_sender = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_sender)
VOICES, align, make_voice, read_16k = _sender.VOICES, _sender.align, _sender.make_voice, _sender.read_16k


def start_bridge(polyvoice, extra, log):
    bridge = subprocess.Popen(
        [polyvoice, "bridge", "--port", "0", "--agent", "echo", "--allow-any-token", *extra],
        stdout=subprocess.PIPE, stderr=log, text=True)
    while True:
        line = bridge.stdout.readline()
        if not line:
            raise RuntimeError("the bridge exited before listening")
        match = re.search(r"listening on (http://\S+/)", line)
        if match:
            threading.Thread(target=lambda: [None for _ in bridge.stdout], daemon=True).start()
            return bridge, match.group(1)


class Peer:
    def __init__(self, log):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "Tests", "Interop", "aiortc_peer.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)

    def ask(self, **request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        if not reply.get("ok"):
            raise RuntimeError(f"aiortc peer: {reply}")
        return reply

    def quit(self):
        try:
            self.ask(op="quit")
        except Exception:
            pass
        self.process.wait(timeout=10)


def score(ref16, received48):
    from pesq import pesq
    rate_in = 48000
    deg = resample_poly(received48.astype(np.float64), 1, rate_in // 16000)[16000:]
    aligned, _ = align(ref16, deg, max_lag_s=len(ref16) / 16000 + 0.5)
    return float(pesq(16000, ref16, aligned, "wb"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--polyvoice", default=os.path.join(ROOT, ".build", "release", "polyvoice"))
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "echo-aiortc"))
    ap.add_argument("--bridge-args", default="", help="extra `polyvoice bridge` options")
    ap.add_argument("--voices", default=",".join(v[0] for v in VOICES))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "log.txt"), "w")
    bridge, url = start_bridge(args.polyvoice, args.bridge_args.split(), log)
    results = {}
    try:
        for name, command, text in [v for v in VOICES if v[0] in args.voices.split(",")]:
            v48, v16 = make_voice(args.out, name, command, text)
            ref = read_16k(v16)
            seconds = len(ref) / 16000
            peer = Peer(log)
            try:
                peer.ask(op="call_bridge", url=url, token="bench", wav=v48)
                time.sleep(1.5 + 2 * seconds)
                path = os.path.join(args.out, f"{name}-heard.wav")
                peer.ask(op="save", path=path)
                peer.ask(op="hang_up")
            finally:
                peer.quit()
            from scipy.io import wavfile
            _, heard = wavfile.read(path)
            results[name] = round(score(ref, heard), 3)
            print(f"{name}: PESQ-WB {results[name]:.2f}", flush=True)
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
    print(f"min {min(results.values()):.2f}")
    print("RESULT_JSON " + json.dumps({"echo_pesq_wb": results, "min": min(results.values())}))


if __name__ == "__main__":
    main()
