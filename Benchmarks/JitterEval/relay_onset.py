"""Virtual-time calls like ReceiverCompare's: a clean set-up, then the relay's impairment from 1.3-1.7 s in, the
speech from 2.0 s (ReceiverCompare's speech: two voices, four utterances), each utterance scored on its own.

ReceiverCompare's real calls judge the onset of jitter against libwebrtc, but a run of 24 seeds takes 10 minutes and
one seed moves by ±0.3 from run to run. These traces copy what its relay does (`polyvoice impair`): jitter is
max(0, 40 + N(0, 30)) ms per packet (reordering allowed); bursty is Gilbert-Elliott loss, 5 % in bursts of 3; loss
is 5 % at random. Every build gets the same traces, so the paired differences have no run-to-run noise.

Usage: python relay_onset.py --seeds 25-48 [--network jitter|bursty|loss] [--repeat N] [--out DIR]
                             NAME=POLYVOICE[:ENV=VALUE,...|:fixed:MS] ...
The first build is the base of the paired differences. `:fixed:MS` plays a fixed MS ms buffer instead of the adaptive
one; `:ENV=VALUE` sets environment variables (for a probe build's switches).
"""

import argparse
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.io import wavfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "ReceiverCompare"))
from evaluate import parse_seeds  # noqa: E402
from run import make_speech  # noqa: E402  (the speech the real calls play)


def write_trace(path, seed, network, packets):
    rng = np.random.default_rng(seed)
    onset = rng.uniform(1300, 1700)
    bad = False
    with open(path, "w") as f:
        f.write("seq,send_ms,arrival_ms\n")
        for k in range(packets):
            send = 20.0 * k
            delay = rng.uniform(0, 1)  # the loopback's own scheduling noise
            lost = False
            if send >= onset:
                if network == "jitter":
                    delay += max(0.0, 40 + rng.normal(0, 30))
                elif network == "bursty":
                    bad = rng.uniform() < (2 / 3 if bad else 0.0175)  # mean burst 3, 5 % of packets in bursts
                    lost = bad
                else:
                    lost = rng.uniform() < 0.05
            f.write(f"{k},{send:.3f},{'' if lost else f'{send + delay:.3f}'}\n")


def parse_build(text):
    name, _, rest = text.partition("=")
    path, _, options = rest.partition(":")
    environment, mode = dict(os.environ), []
    if options.startswith("fixed:"):
        mode = ["--buffer", options]
    else:
        for pair in filter(None, options.split(",")):
            key, _, value = pair.partition("=")
            environment[key] = value
    return name, path, environment, mode


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", required=True, help="a-b or a list such as 1,2,5-8")
    parser.add_argument("--network", choices=["jitter", "bursty", "loss"], default="jitter")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="say the speech N times (a long call)")
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "relay-onset"))
    parser.add_argument("builds", nargs="+", metavar="NAME=POLYVOICE[:OPTIONS]")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat wants 1 or more")
    seeds = [int(seed) for seed in parse_seeds(args.seeds)]
    builds = [parse_build(text) for text in args.builds]
    os.makedirs(args.out, exist_ok=True)
    speech = make_speech(args.out, args.repeat)[0]
    rate, samples = wavfile.read(speech)
    packets = math.ceil(len(samples) / rate * 50) + 1  # 20 ms packets for all of the speech (730 for one saying)
    for seed in seeds:
        write_trace(os.path.join(args.out, f"{args.network}-{seed}.csv"), seed, args.network, packets)

    def one(job):
        seed, (name, path, environment, mode) = job
        wav = os.path.join(args.out, f"{args.network}-{seed}-{name}.wav")
        subprocess.run([path, "jitter-sim", "--trace", os.path.join(args.out, f"{args.network}-{seed}.csv"),
                        "--input", speech, "--output", wav, *mode], env=environment, check=True,
                       capture_output=True)
        scored = json.loads(subprocess.run(
            [sys.executable, os.path.join(ROOT, "scripts", "quality.py"), speech, wav, "--json", "--max-delay", "3",
             "--from", "1.0", "--utterances"], check=True, capture_output=True, text=True).stdout)
        return seed, name, [scored["pesq_wb"]] + scored["pesq_wb_utterances"]

    scores = {}
    with ThreadPoolExecutor(2) as pool:
        for seed, name, values in pool.map(one, [(seed, build) for seed in seeds for build in builds]):
            scores.setdefault(name, []).append([np.nan if v is None else v for v in values])
    with open(os.path.join(args.out, f"{args.network}-results.json"), "w") as f:
        json.dump({name: dict(zip(seeds, rows)) for name, rows in scores.items()}, f)
    base = np.array(scores[builds[0][0]])
    print(f"{args.network}, seeds {args.seeds}: PESQ-WB of the whole speech, then of each utterance")
    for name, _, _, _ in builds:
        values = np.array(scores[name])
        line = f"{name:12} " + " ".join(f"{v:.2f}" for v in np.nanmean(values, axis=0))
        if name != builds[0][0]:
            difference = values - base
            error = np.nanstd(difference, axis=0, ddof=1) / np.sqrt(len(seeds))
            line += "  paired " + " ".join(
                f"{m:+.3f} ({e:.3f})" for m, e in zip(np.nanmean(difference, axis=0), error))
        print(line)


if __name__ == "__main__":
    main()
