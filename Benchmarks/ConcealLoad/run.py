#!/usr/bin/env python3
"""Concurrent echo calls under CPU contention: does playout conceal audio that arrived (issue #20)?

Starts `polyvoice bridge --media-port 0 --agent echo`, then --calls concurrent
`polyvoice call --input speech.wav --output callN.wav --duration S --json` processes, while --hogs busy
processes keep the cores loaded for the middle part of the calls (from 20 % to 80 % of --duration, as in the
issue: "busy part of the time"). Repeated --runs times. Per call it reports the playout figures of the
call's --json summary (concealed share of the samples played, accelerate/decelerate samples, mean buffer
delay vs mean target, packets lost), the warnings raised, the last MOS, and from the recorded WAV the
mouth-to-ear round trip through the echo agent (cross-correlation with the input) and PESQ-WB.
The last line is `RESULT_JSON {...}`.

    .venv/bin/python Benchmarks/ConcealLoad/run.py --bin .build/release --calls 10 --runs 3
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
from scipy.io import wavfile
from scipy.signal import correlate, resample_poly

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEXTS = [
    ("en-us", "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
              "It is easy to tell the depth of a well. These days a chicken leg is a rare dish."),
    ("en+f3", "Rice is often served in round bowls. The juice of lemons makes fine punch. "
              "The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage."),
]


def make_speech(path):
    """About 20 s of espeak-ng speech at 48 kHz (deterministic), two voices."""
    parts = []
    for i, (voice, text) in enumerate(TEXTS):
        part = path + f".{i}.wav"
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "make-speech.sh"), part, voice, text], check=True)
        parts.append(part)
    subprocess.run(["sox", *parts, path], check=True)
    for part in parts:
        os.remove(part)


def read_mono(path):
    rate, data = wavfile.read(path)
    data = data.astype(np.float64)
    if data.ndim > 1:
        data = data.mean(axis=1)
    return rate, data


def round_trip_ms(reference, output, rate):
    """Lag of the echo in the output (ms), by cross-correlation (FFT), searched in 0..1 s."""
    n = min(len(output), len(reference) + rate)
    c = correlate(output[:n], reference, mode="full", method="fft")
    zero = len(reference) - 1
    window = c[zero:zero + rate]
    return float(np.argmax(window)) * 1000 / rate


def pesq_wb(reference, output, rate, lag_ms):
    from pesq import pesq
    lag = int(round(lag_ms * rate / 1000))
    aligned = output[lag:lag + len(reference)]
    n = min(len(aligned), len(reference))
    if n < rate:
        return None
    ref16 = resample_poly(reference[:n], 1, rate // 16000)
    out16 = resample_poly(aligned[:n], 1, rate // 16000)
    try:
        return float(pesq(16000, ref16, out16, "wb"))
    except Exception:
        return None


def start_bridge(polyvoice, log):
    bridge = subprocess.Popen(
        [polyvoice, "bridge", "--port", "0", "--media-port", "0", "--agent", "echo", "--allow-any-token",
         "--max-calls", "1000"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    while True:
        line = bridge.stdout.readline()
        if not line:
            raise RuntimeError("the bridge exited before listening")
        match = re.search(r"listening on (http://\S+/)", line)
        if match:
            threading.Thread(target=lambda: [None for _ in bridge.stdout], daemon=True).start()
            return bridge, match.group(1)


def hog(stop_at):
    """A busy process until `stop_at` (monotonic seconds)."""
    return subprocess.Popen([sys.executable, "-c",
                             f"import time\nend=time.monotonic()+{stop_at - time.monotonic():.3f}\n"
                             "while time.monotonic()<end: pass"])


def one_run(args, polyvoice, speech, work, run_index):
    log = open(os.path.join(work, f"bridge-{run_index}.log"), "w")
    bridge, url = start_bridge(polyvoice, log)
    token = os.path.join(work, "token")
    with open(token, "w") as f:
        f.write("bench-token\n")
    calls = []
    try:
        for i in range(args.calls):
            out = os.path.join(work, f"run{run_index}-call{i}.wav")
            p = subprocess.Popen(
                [polyvoice, "call", "--bridge", url, "--token-file", token, "--input", speech, "--output", out,
                 "--duration", str(args.duration), "--json"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            calls.append((p, out))
            time.sleep(args.stagger)
        began = time.monotonic()
        hogs = []
        if args.hogs > 0:
            time.sleep(args.duration * 0.2)
            hogs = [hog(began + args.duration * 0.8) for _ in range(args.hogs)]
        results = []
        for p, out in calls:
            stdout, _ = p.communicate(timeout=args.duration + 60)
            results.append((p.returncode, stdout, out))
        for h in hogs:
            h.wait()
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
        log.close()
    return results


def summarise(returncode, stdout, out, reference, rate):
    summary, mos, warnings = None, None, set()
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "summary":
            summary = event
        elif event.get("type") == "stats" and event.get("mos") is not None:
            mos = event["mos"]
        elif event.get("type") == "warning" and event.get("raised"):
            warnings.add(event["warning"])
    if summary is None:
        return {"ok": False, "exit": returncode}
    playout = summary.get("playout", {})
    played = max(playout.get("totalSamplesReceived", 0), 1)
    result = {
        "ok": summary.get("result") == "ended", "exit": returncode,
        "packets_received": summary["packetsReceived"], "packets_lost": max(summary["packetsLost"], 0),
        "conceal_pct": 100 * playout.get("concealedSamples", 0) / played,
        "accelerate_samples": playout.get("removedSamplesForAcceleration", 0),
        "decelerate_samples": playout.get("insertedSamplesForDeceleration", 0),
        "delay_ms": playout.get("meanDelayMs"), "target_ms": playout.get("meanTargetDelayMs"),
        "mos": summary.get("mos", mos), "warnings": sorted(warnings),
    }
    if os.path.exists(out):
        out_rate, output = read_mono(out)
        if out_rate == rate and len(output) > rate:
            lag = round_trip_ms(reference, output, rate)
            result["round_trip_ms"] = lag
            result["pesq_wb"] = pesq_wb(reference, output, rate, lag)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--duration", type=float, default=25)
    ap.add_argument("--hogs", type=int, default=2, help="busy processes for the middle 60 %% of each run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stagger", type=float, default=0.15, help="seconds between call starts")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "conceal-load"))
    ap.add_argument("--no-pesq", action="store_true")
    args = ap.parse_args()
    polyvoice = os.path.join(args.bin, "polyvoice")
    os.makedirs(args.out, exist_ok=True)
    speech = os.path.join(args.out, "speech.wav")
    if not os.path.exists(speech):
        make_speech(speech)
    rate, reference = read_mono(speech)

    calls = []
    for r in range(args.runs):
        for returncode, stdout, out in one_run(args, polyvoice, speech, args.out, r):
            result = summarise(returncode, stdout, out, reference, rate)
            if args.no_pesq:
                result.pop("pesq_wb", None)
            result["run"] = r
            calls.append(result)

    print(f"{'run':>3} {'call':>4} {'lost':>5} {'conceal%':>8} {'accel':>7} {'decel':>7} {'delay':>6} "
          f"{'target':>6} {'rt_ms':>6} {'pesq':>5} {'mos':>5}  warnings")
    for i, c in enumerate(calls):
        if not c.get("ok"):
            print(f"{c['run']:>3} {i:>4}  FAILED (exit {c['exit']})")
            continue
        fmt = lambda v, spec: format(v, spec) if v is not None else "-"
        print(f"{c['run']:>3} {i % args.calls:>4} {c['packets_lost']:>5} {c['conceal_pct']:>8.2f} "
              f"{c['accelerate_samples']:>7} {c['decelerate_samples']:>7} {fmt(c['delay_ms'], '6.1f')} "
              f"{fmt(c['target_ms'], '6.1f')} {fmt(c.get('round_trip_ms'), '6.1f')} "
              f"{fmt(c.get('pesq_wb'), '5.2f')} {fmt(c['mos'], '5.2f')}  {','.join(c['warnings'])}")
    ok = [c for c in calls if c.get("ok")]
    clean = [c for c in ok if c["packets_lost"] == 0]
    conceal = sorted(c["conceal_pct"] for c in clean)
    trips = sorted(c["round_trip_ms"] for c in ok if c.get("round_trip_ms") is not None)
    pesqs = [c["pesq_wb"] for c in ok if c.get("pesq_wb") is not None]
    result = {
        "bench": "ConcealLoad", "calls": args.calls, "runs": args.runs, "hogs": args.hogs,
        "duration_s": args.duration, "failed_calls": len(calls) - len(ok), "zero_loss_calls": len(clean),
        "max_conceal_pct_zero_loss": round(max(conceal), 3) if conceal else None,
        "calls_above_2pct_zero_loss": sum(1 for v in conceal if v > 2),
        "median_conceal_pct": round(float(np.median(conceal)), 3) if conceal else None,
        "round_trip_ms_median": round(float(np.median(trips)), 1) if trips else None,
        "round_trip_ms_max": round(max(trips), 1) if trips else None,
        "pesq_wb_min": round(min(pesqs), 2) if pesqs else None,
        "pesq_wb_median": round(float(np.median(pesqs)), 2) if pesqs else None,
        "high_concealment_warnings": sum(1 for c in ok if "highConcealment" in c["warnings"]),
        "per_call": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in c.items()} for c in calls],
    }
    print(f"zero-loss calls: {len(clean)}, max concealed {result['max_conceal_pct_zero_loss']} %, "
          f"above 2 %: {result['calls_above_2pct_zero_loss']}; round trip median {result['round_trip_ms_median']} "
          f"ms, max {result['round_trip_ms_max']} ms; PESQ-WB min {result['pesq_wb_min']}")
    print("RESULT_JSON " + json.dumps(result))


if __name__ == "__main__":
    main()
