#!/usr/bin/env python3
"""Scores a degraded speech recording against its reference: PESQ wideband, STOI and delay.

Usage: quality.py REF.wav DEG.wav [--json] [--max-delay SECONDS]

Both files are mixed to mono, resampled to 16 kHz, aligned by cross-correlation (the degraded
signal is shifted by the measured delay) and trimmed to their overlap before scoring.
"""
import argparse
import json
import sys
from math import gcd

import numpy as np
from pesq import pesq
from pystoi import stoi
from scipy.io import wavfile
from scipy.signal import correlate, resample_poly

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("degraded")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--max-delay", type=float, default=2.0, help="largest delay searched, seconds")
    args = parser.parse_args()

    ref = load(args.reference)
    deg = load(args.degraded)
    lag = delay_samples(ref, deg, int(args.max_delay * RATE))
    ref, deg = align(ref, deg, lag)
    if len(ref) < RATE // 4:
        print("quality.py: less than 0.25 s of overlap after alignment", file=sys.stderr)
        return 1
    result = {
        "pesq_wb": float(pesq(RATE, ref, deg, "wb")),
        "stoi": float(stoi(ref, deg, RATE, extended=False)),
        "delay_ms": lag * 1000.0 / RATE,
        "duration_s": len(ref) / RATE,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"PESQ-WB {result['pesq_wb']:.3f}  STOI {result['stoi']:.3f}  delay {result['delay_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
