"""Trace-driven jitter buffer evaluation: PESQ-WB, STOI, added delay and concealment per network profile.

For each profile, one seeded arrival trace drives four buffers on the same Opus packets (32 kbps, 20 ms, in-band
FEC with the trace's loss rate as hint, all decoded by the same libopus decoder):
  ours      the adaptive JitterBuffer           (polyvoice jitter-sim --buffer adaptive)
  fixed60   a fixed 60 ms buffer, first-arrival clock (polyvoice jitter-sim --buffer fixed:60)
  jbuf      baresip's libre jbuf (min 5, max 10 packets: baresip's default), via the C harness JbufHarness
  aiortc    aiortc's audio JitterBuffer(capacity=16, prefetch=4), via aiortc_playout.py
The baselines' playout decisions are recorded as schedules and decoded by jitter-sim, so the codec is identical.

Each output is aligned to the input (cross-correlation at 16 kHz), then scored with PESQ wideband and STOI.
"Delay" is the mean time a played sample waited in the buffer (arrival to playout; W3C jitterBufferDelay /
jitterBufferEmittedCount); "conceal" is concealed (PLC or silence) / played packet audio.

Usage: python evaluate.py [--bin DIR] [--out DIR] [--seed N] [--profiles a,b,...]
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PROFILES = ["clean", "wifi", "lte", "bursty", "congested", "outage"]
BUFFERS = ["ours", "fixed60", "jbuf", "aiortc"]
SENTENCES = [
    ("en-us+m3", "The quick brown fox jumps over the lazy dog. Voice agents answer questions about your account, "
     "your bills and your travel plans. Please hold while I look that up for you."),
    ("en+f3", "Thank you for calling. I can help you change your booking, check the weather in Paris, "
     "or read your latest messages. What would you like to do today?"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def make_speech(out):
    """About 20 s of espeak-ng speech in two voices, 16 kHz mono (deterministic)."""
    path = os.path.join(out, "speech.wav")
    parts = []
    for i, (voice, text) in enumerate(SENTENCES):
        part = os.path.join(out, f"voice{i}.wav")
        run(["espeak-ng", "-v", voice, "-s", "160", "-w", part, text])
        parts.append(part)
    run(["sox", *parts, "-r", "16000", path])
    return path


def read_16k(path):
    rate, x = wavfile.read(path)
    x = x.astype(np.float64)
    if x.ndim > 1:
        x = x.mean(axis=1)
    if rate != 16000:
        g = np.gcd(rate, 16000)
        x = resample_poly(x, 16000 // g, rate // g)
    return x


def align(ref, deg, max_lag_s=1.5):
    """Shifts `deg` by the lag (0..max_lag) that best matches `ref`, trimmed/padded to its length."""
    n = 1 << int(np.ceil(np.log2(len(ref) + len(deg))))
    xc = np.fft.irfft(np.fft.rfft(deg, n) * np.conj(np.fft.rfft(ref, n)), n)
    lag = int(np.argmax(xc[: int(max_lag_s * 16000)]))
    out = deg[lag: lag + len(ref)]
    return np.pad(out, (0, len(ref) - len(out))), lag / 16


def score(ref, deg):
    from pesq import pesq
    from pystoi import stoi
    aligned, lag_ms = align(ref, deg)
    try:
        p = pesq(16000, ref, aligned, "wb")
    except Exception:  # PESQ refuses signals it finds no speech in
        p = float("nan")
    return p, stoi(ref, aligned, 16000, extended=False), lag_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None, help="directory with polyvoice and JbufHarness")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "jitter-eval"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--plot-profile", default="lte")
    args = ap.parse_args()
    bindir = args.bin or next(
        d for d in (os.path.join(ROOT, ".build", "release"), os.path.join(ROOT, ".build", "debug"))
        if os.path.exists(os.path.join(d, "polyvoice")) and os.path.exists(os.path.join(d, "JbufHarness")))
    polyvoice = os.path.join(bindir, "polyvoice")
    harness = os.path.join(bindir, "JbufHarness")
    os.makedirs(args.out, exist_ok=True)
    speech = make_speech(args.out)
    ref = read_16k(speech)
    seconds = int(np.ceil(len(ref) / 16000))
    results = {}
    for profile in args.profiles.split(","):
        trace = os.path.join(args.out, f"{profile}.csv")
        run([polyvoice, "jitter-sim", "--generate", profile, "--seed", str(args.seed), "--seconds", str(seconds),
             "--output", trace])
        jbuf_schedule = os.path.join(args.out, f"{profile}-jbuf.sched")
        with open(jbuf_schedule, "w") as f:
            f.write(run([harness, trace, "5", "10"]))
        aiortc_schedule = os.path.join(args.out, f"{profile}-aiortc.sched")
        with open(aiortc_schedule, "w") as f:
            f.write(run([sys.executable, os.path.join(HERE, "aiortc_playout.py"), trace]))
        modes = {"ours": "adaptive", "fixed60": "fixed:60", "jbuf": f"schedule:{jbuf_schedule}",
                 "aiortc": f"schedule:{aiortc_schedule}"}
        for name in BUFFERS:
            wav = os.path.join(args.out, f"{profile}-{name}.wav")
            cmd = [polyvoice, "jitter-sim", "--trace", trace, "--input", speech, "--output", wav,
                   "--buffer", modes[name], "--json"]
            if name == "ours" and profile == args.plot_profile:
                cmd += ["--timeline", os.path.join(args.out, f"{profile}-timeline.csv")]
            stats = json.loads(run(cmd))
            p, s, lag = score(ref, read_16k(wav))
            played = stats["concealedSamples"] + stats["jitterBufferEmittedCount"]
            results[(profile, name)] = dict(
                pesq=p, stoi=s, delay=stats["mean_delay_ms"], lag=lag,
                conceal=100 * stats["concealedSamples"] / max(played, 1),
                fec=stats["fecPacketsRecovered"], stats=stats)
        print(f"  {profile} done", file=sys.stderr, flush=True)

    header = f"{'profile':<10} {'buffer':<8} {'PESQ-WB':>7} {'STOI':>6} {'delay ms':>9} {'conceal %':>9} {'FEC rec':>7}"
    lines = [header, "-" * len(header)]
    for profile in args.profiles.split(","):
        for name in BUFFERS:
            r = results[(profile, name)]
            lines.append(f"{profile:<10} {name:<8} {r['pesq']:7.2f} {r['stoi']:6.3f} {r['delay']:9.1f} "
                         f"{r['conceal']:9.2f} {r['fec']:7d}")
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(args.out, "results.txt"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({f"{k[0]}/{k[1]}": v for k, v in results.items()}, f, indent=1)
    timeline = os.path.join(args.out, f"{args.plot_profile}-timeline.csv")
    if os.path.exists(timeline):
        subprocess.run([sys.executable, os.path.join(HERE, "plot_timeline.py"), timeline,
                        os.path.join(args.out, f"{args.plot_profile}-timeline.png")], check=True)


if __name__ == "__main__":
    main()
