#!/usr/bin/env python3
"""Scores a degraded speech recording against its reference: PESQ wideband, STOI and delay.

Usage: quality.py REF.wav DEG.wav [--json] [--max-delay SECONDS] [--from SECONDS] [--utterances]

Both files are mixed to mono, resampled to 16 kHz, aligned by cross-correlation (the degraded
signal is shifted by the measured delay) and trimmed to their overlap before scoring. PESQ gets that one
global alignment (it re-aligns each utterance itself); STOI, which has no alignment of its own, gets the
degraded signal re-aligned per 1 s chunk within 300 ms of the global delay, so a receiver whose delay moves
during the call (a jitter buffer growing after a burst, time-stretching) is not scored as unintelligible
for the part after the move. `stoi_global` is STOI after the one global alignment, for comparison.
`--from` scores only the reference from that time on (after the same alignment): a part both recordings share.
`--utterances` also scores each utterance of the reference on its own (`pesq_wb_utterances`, with their spans in
`utterances_s`): the reference split at pauses of 150 ms or more, each piece with 100 ms of its pause either side,
aligned on its own within 300 ms of the global delay. A receiver's one bad moment then shows where it is.
"""
import argparse
import json
import sys
from math import gcd

import numpy as np
from pesq import pesq
from pystoi import stoi
from scipy.io import wavfile
from scipy.signal import correlate, fftconvolve, resample_poly

RATE = 16000


def load(path):
    """Returns the file as float64 mono at 16 kHz, full scale ±1."""
    rate, data = wavfile.read(path)
    if np.issubdtype(data.dtype, np.integer):
        data = data.astype(np.float64) / float(np.iinfo(data.dtype).max + 1)
    else:
        data = data.astype(np.float64)
    if data.ndim > 1:
        data = data.mean(axis=1)
    if rate != RATE:
        divisor = gcd(rate, RATE)
        data = resample_poly(data, RATE // divisor, rate // divisor)
    return data


def delay_samples(ref, deg, max_lag):
    """Lag of deg behind ref (positive: deg is late) that maximizes the cross-correlation."""
    corr = correlate(deg, ref, mode="full", method="fft")
    lags = np.arange(-len(ref) + 1, len(deg))
    window = np.abs(lags) <= max_lag
    return int(lags[window][np.argmax(corr[window])])


def align(ref, deg, lag):
    """The overlapping parts of ref[i] and deg[i + lag]."""
    if lag >= 0:
        deg = deg[lag:]
    else:
        ref = ref[-lag:]
    length = min(len(ref), len(deg))
    return ref[:length], deg[:length]


def best_match(piece, deg, start, lag, search):
    """Where in deg `piece` (ref[start:...]) correlates best, searched within `search` of deg[start + lag]; None when
    deg does not cover the search."""
    lo = max(0, start + lag - search)
    segment = deg[lo:start + lag + search + len(piece)]
    if len(segment) < len(piece):
        return None
    return lo + int(np.argmax(fftconvolve(segment, piece[::-1], mode="valid")))


def align_piecewise(ref, deg, lag, chunk=RATE, search=int(0.3 * RATE)):
    """deg re-aligned to ref chunk by chunk (ref[i] against the returned [i]), each 1 s chunk of ref at the lag
    within ±300 ms of `lag` (≥ 0) that correlates best; a silent chunk keeps `lag`. Time-stretching and delay
    changes move the audio by tens to hundreds of ms during a call, which one global lag would score as
    distortion. Missing audio at the end is zeros."""
    out = np.zeros_like(ref)
    for start in range(0, len(ref), chunk):
        r = ref[start:start + chunk]
        best_lag = lag
        if np.dot(r, r) > 0:
            found = best_match(r, deg, start, lag, search)
            best_lag = lag if found is None else found - start
        piece = deg[start + best_lag: start + best_lag + len(r)]
        out[start:start + len(piece)] = piece
    return out


def utterances(ref, min_pause=0.15, frame=RATE // 50, quiet=1e-4):
    """Spans [start, end) in samples of ref's speech: runs of 20 ms frames, split where frames quieter than
    `quiet` RMS (digital silence and a synthesiser's pauses) last `min_pause` seconds or more."""
    spans, start, end, quiet_frames = [], None, 0, 0
    for i in range(len(ref) // frame):
        piece = ref[i * frame:(i + 1) * frame]
        if np.sqrt(np.mean(piece * piece)) >= quiet:
            start = i if start is None else start
            end, quiet_frames = i + 1, 0
        elif start is not None:
            quiet_frames += 1
            if quiet_frames * frame >= min_pause * RATE:
                spans.append((start * frame, end * frame))
                start = None
    if start is not None:
        spans.append((start * frame, end * frame))
    return spans


def utterance_pesq(ref, deg, lag, span, pad=int(0.1 * RATE), search=int(0.3 * RATE)):
    """PESQ-WB of one utterance `span` of ref (with `pad` either side) against the piece of deg, at the lag within
    `search` of `lag` that correlates best; None when deg does not cover it."""
    start, end = max(0, span[0] - pad), min(len(ref), span[1] + pad)
    r = ref[start:end]
    best = best_match(r, deg, start, lag, search)
    return None if best is None else float(pesq(RATE, r, deg[best:best + len(r)], "wb"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("degraded")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--max-delay", type=float, default=2.0, help="largest delay searched, seconds")
    parser.add_argument("--from", dest="start", type=float, default=0.0,
                        help="score the reference from this time on (seconds), after aligning the whole files")
    parser.add_argument("--utterances", action="store_true",
                        help="also score each utterance (from --from on) on its own, aligned on its own")
    args = parser.parse_args()

    ref = load(args.reference)
    deg = load(args.degraded)
    lag = delay_samples(ref, deg, int(args.max_delay * RATE))
    ref_aligned, deg_aligned = align(ref, deg, lag)
    # A negative lag (deg starts early) becomes lag 0 on ref without its first -lag samples, as in align().
    deg_piecewise = align_piecewise(ref[max(0, -lag):], deg, max(0, lag))[:len(ref_aligned)]
    skip = max(0, int(args.start * RATE) - max(0, -lag))  # the aligned arrays start at ref[max(0, -lag)]
    ref_aligned, deg_aligned, deg_piecewise = ref_aligned[skip:], deg_aligned[skip:], deg_piecewise[skip:]
    if len(ref_aligned) < RATE // 4:
        print("quality.py: less than 0.25 s of overlap after alignment", file=sys.stderr)
        return 1
    result = {
        "pesq_wb": float(pesq(RATE, ref_aligned, deg_aligned, "wb")),
        "stoi": float(stoi(ref_aligned, deg_piecewise, RATE, extended=False)),
        "stoi_global": float(stoi(ref_aligned, deg_aligned, RATE, extended=False)),
        "delay_ms": lag * 1000.0 / RATE,
        "duration_s": len(ref_aligned) / RATE,
    }
    if args.utterances:
        spans = [span for span in utterances(ref) if span[0] >= args.start * RATE]
        result["utterances_s"] = [[round(a / RATE, 2), round(b / RATE, 2)] for a, b in spans]
        result["pesq_wb_utterances"] = [utterance_pesq(ref, deg, lag, span) for span in spans]
    if args.json:
        print(json.dumps(result))
    else:
        print(f"PESQ-WB {result['pesq_wb']:.3f}  STOI {result['stoi']:.3f}  delay {result['delay_ms']:.1f} ms")
        for (a, b), score in zip(result.get("utterances_s", []), result.get("pesq_wb_utterances", [])):
            print(f"  utterance {a:.2f}-{b:.2f} s: PESQ-WB " + ("—" if score is None else f"{score:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
