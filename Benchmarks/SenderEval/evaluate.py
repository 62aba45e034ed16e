"""Sender evaluation: PESQ-WB of what the far end decodes against Opus bitrate, bandwidth and complexity.

Each voice (48 kHz mono) is coded by SenderEval (our `OpusEncoder` wrapper, the client's send path) at every
bitrate × bandwidth × complexity, clean and at 2/5/10 % random loss with in-band FEC (loss hint = loss rate),
and decoded at 16 kHz (FEC from the next packet when it arrived, else PLC). PESQ-WB against the voice at 16 kHz,
after cross-correlation alignment (JitterEval's `align`). Loss columns are the mean over loss seeds and voices.

Voices: espeak-ng en-us+m3 and en+f3 (JitterEval's), espeak-ng en+f4 (a high female voice: the hardest for
the codec of those tried) and flite's slt (a statistical-parametric voice built from recordings: not espeak).

Usage: python evaluate.py [--bin DIR] [--out DIR] [--seeds 3,4] [--complexities 5,9,10] [--jobs 2]
       python evaluate.py --echo [--complexities 0,1,5,9] [--bitrates 32000,48000,64000]
The defaults (CodecSettings) were chosen on loss seeds 1,2; the report uses 3,4 unless told otherwise.
--echo: the bridge's echo instead (one more generation, clean): each voice is coded fullband at 96 kbit/s as a
WebRTC caller sends it, decoded at 16 kHz (the echo agent's rate), then coded wideband at 16 kHz by each
application (voip: SILK; celt: restricted-low-delay, the echo's clean-path mode) × bitrate × complexity; the
encoder's mean µs per frame is reported beside it (in the same process: the rows are each other's baseline).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "JitterEval"))
from evaluate import align, read_16k  # noqa: E402  (JitterEval's alignment and resampling)

VOICES = [
    ("m3", ["espeak-ng", "-v", "en-us+m3", "-s", "160"],
     "The quick brown fox jumps over the lazy dog. Voice agents answer questions about your account."),
    ("f3", ["espeak-ng", "-v", "en+f3", "-s", "160"],
     "Thank you for calling. I can help you change your booking or check the weather in Paris."),
    ("f4", ["espeak-ng", "-v", "en+f4", "-s", "170"],
     "Your flight to Lisbon leaves at seven fifteen from gate twelve. Would you like a seat by the window?"),
    ("slt", ["flite", "-voice", "slt"],
     "Please hold while I look that up for you. Your balance is forty two dollars and six cents."),
]
BITRATES = [16000, 24000, 32000, 48000, 64000, 96000]
BANDWIDTHS = ["wideband", "fullband"]
LOSSES = [0, 2, 5, 10]


def run(cmd):
    return subprocess.run(cmd, check=True, text=True, capture_output=True).stdout


def make_voice(out, name, command, text):
    """The voice at 48 kHz (what the encoder gets) and at 16 kHz (PESQ-WB's reference), deterministic."""
    raw = os.path.join(out, f"{name}-tts.wav")
    if command[0] == "flite":
        run(command + ["-t", text, "-o", raw])
    else:
        run(command + ["-w", raw, text])
    v48 = os.path.join(out, f"{name}-48k.wav")
    v16 = os.path.join(out, f"{name}-16k.wav")
    run(["sox", "-D", raw, "-r", "48000", "-b", "16", v48, "norm", "-3"])
    run(["sox", "-D", v48, "-r", "16000", v16])
    return v48, v16


def score_file(args):
    ref_path, raw_path = args
    from pesq import pesq
    ref = read_16k(ref_path)
    deg = np.fromfile(raw_path, dtype="<i2").astype(np.float64)
    aligned, _ = align(ref, deg, max_lag_s=0.1)
    try:
        return float(pesq(16000, ref, aligned, "wb"))
    except Exception:
        return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None, help="directory with SenderEval (default: release build)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "sender-eval"))
    ap.add_argument("--seeds", default="3,4", help="loss seeds (defaults were chosen on 1,2)")
    ap.add_argument("--complexities", default="5,9,10")
    ap.add_argument("--bitrates", default=",".join(str(b) for b in BITRATES))
    ap.add_argument("--voices", default=",".join(v[0] for v in VOICES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--echo", action="store_true", help="the bridge echo's second generation instead")
    ap.add_argument("--applications", default="voip,celt", help="with --echo")
    args = ap.parse_args()
    bindir = args.bin or next(
        d for d in (os.path.join(ROOT, ".build", "release"), os.path.join(ROOT, ".build", "debug"))
        if os.path.exists(os.path.join(d, "SenderEval")))
    tool = os.path.join(bindir, "SenderEval")
    os.makedirs(args.out, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    complexities = [int(c) for c in args.complexities.split(",")]
    bitrates = [int(b) for b in args.bitrates.split(",")]
    voices = [v for v in VOICES if v[0] in args.voices.split(",")]
    if args.echo:
        return echo(args, tool, voices, complexities, bitrates)

    scores = {}  # (voice, bitrate, band, complexity, loss) -> mean PESQ over seeds
    kbps = {}  # (voice, bitrate, band, complexity, loss) -> coded kbit/s
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, command, text in voices:
            v48, v16 = make_voice(args.out, name, command, text)
            coded = os.path.join(args.out, name)
            shutil.rmtree(coded, ignore_errors=True)
            lines = run([tool, v48, coded, "--bitrates", ",".join(map(str, bitrates)),
                         "--bandwidths", ",".join(BANDWIDTHS), "--complexities", ",".join(map(str, complexities)),
                         "--losses", ",".join(map(str, LOSSES)), "--seeds", ",".join(map(str, seeds))])
            for line in lines.splitlines():
                r = json.loads(line)
                kbps[(name, r["bitrate"], r["bandwidth"], r["complexity"], r["loss"])] = r["kbps"]
            jobs = []
            for b in bitrates:
                for band in BANDWIDTHS:
                    for c in complexities:
                        for loss in LOSSES:
                            for s in ([0] if loss == 0 else seeds):
                                jobs.append(((name, b, band, c, loss),
                                             os.path.join(coded, f"{b // 1000}-{band}-c{c}-l{loss}-s{s}.raw")))
            results = list(pool.map(score_file, [(v16, path) for _, path in jobs], chunksize=8))
            per = {}
            for (key, _), p in zip(jobs, results):
                per.setdefault(key, []).append(p)
            scores.update({key: float(np.mean(v)) for key, v in per.items()})
            shutil.rmtree(coded, ignore_errors=True)

    names = [v[0] for v in voices]
    head = ("| bitrate | band | cx | kbps | " + " | ".join(f"clean {n}" for n in names)
            + " | clean min | 2 % | 5 % | 10 % | 5 % min |")
    print(f"PESQ-WB, loss columns: mean over voices and loss seeds {seeds} (in-band FEC, hint = loss)")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    rows = []
    for b in bitrates:
        for band in BANDWIDTHS:
            for c in complexities:
                clean = [scores[(n, b, band, c, 0)] for n in names]
                loss = {lv: float(np.mean([scores[(n, b, band, c, lv)] for n in names])) for lv in LOSSES[1:]}
                worst5 = min(scores[(n, b, band, c, 5)] for n in names)
                rate = float(np.mean([kbps[(n, b, band, c, 0)] for n in names]))
                rows.append(dict(bitrate=b, bandwidth=band, complexity=c, kbps=round(rate, 1),
                                 clean={n: round(p, 3) for n, p in zip(names, clean)}, clean_min=round(min(clean), 3),
                                 loss={str(k): round(v, 3) for k, v in loss.items()}, loss5_min=round(worst5, 3)))
                print(f"| {b // 1000} | {band[:2].upper()} | {c} | {rate:.1f} | "
                      + " | ".join(f"{p:.2f}" for p in clean)
                      + f" | {min(clean):.2f} | {loss[2]:.2f} | {loss[5]:.2f} | {loss[10]:.2f} | {worst5:.2f} |")
    print("RESULT_JSON " + json.dumps({"seeds": seeds, "voices": names, "rows": rows}))


def echo(args, tool, voices, complexities, bitrates):
    applications = args.applications.split(",")
    scores, cost = {}, {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, command, text in voices:
            v48, v16 = make_voice(args.out, name, command, text)
            coded = os.path.join(args.out, name + "-echo")
            shutil.rmtree(coded, ignore_errors=True)
            lines = run([tool, v48, coded, "--first-bitrate", "96000", "--applications", ",".join(applications),
                         "--bitrates", ",".join(map(str, bitrates)), "--bandwidths", "wideband",
                         "--complexities", ",".join(map(str, complexities)), "--losses", "0"])
            for line in lines.splitlines():
                r = json.loads(line)
                cost.setdefault((r["application"], r["bitrate"], r["complexity"]), []).append(r["encode_us"])
            keys = [(a, b, c) for a in applications for b in bitrates for c in complexities]
            paths = [os.path.join(coded, ("" if a == "voip" else a + "-") + f"{b // 1000}-wideband-c{c}-l0-s0.raw")
                     for a, b, c in keys]
            for key, p in zip(keys, pool.map(score_file, [(v16, path) for path in paths])):
                scores[(name,) + key] = p
            shutil.rmtree(coded, ignore_errors=True)
    names = [v[0] for v in voices]
    print("Bridge echo, clean: caller 96 kbit/s fullband -> echo at 16 kHz, wideband -> caller; PESQ-WB")
    head = "| application | bitrate | cx | encode µs/frame | " + " | ".join(names) + " | min |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    rows = []
    for a in applications:
        for b in bitrates:
            for c in complexities:
                ps = [scores[(n, a, b, c)] for n in names]
                us = float(np.mean(cost[(a, b, c)]))
                rows.append(dict(application=a, bitrate=b, complexity=c, encode_us=round(us, 1),
                                 pesq={n: round(p, 3) for n, p in zip(names, ps)}, min=round(min(ps), 3)))
                print(f"| {a} | {b // 1000} | {c} | {us:.0f} | " + " | ".join(f"{p:.2f}" for p in ps)
                      + f" | {min(ps):.2f} |")
    print("RESULT_JSON " + json.dumps({"echo_rows": rows, "voices": names}))


if __name__ == "__main__":
    main()
