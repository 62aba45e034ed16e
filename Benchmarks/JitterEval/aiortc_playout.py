"""Drives aiortc's audio JitterBuffer offline along an arrival trace and records what a real-time player plays.

aiortc's receiver uses JitterBuffer(capacity=16, prefetch=4) for audio and hands each frame it releases to the
decoder at once; it has no playout clock and no PLC. We model the sink as a 20 ms player clock that starts with
the first released frame and plays silence when none is queued. Output CSV `play_ms,seq` (z = silence), decoded
by `polyvoice jitter-sim --buffer schedule:FILE` with the same Opus decoder as every other buffer.

Usage: python aiortc_playout.py TRACE.csv > schedule.csv
"""

import csv
import sys

from aiortc.jitterbuffer import JitterBuffer
from aiortc.rtp import RtpPacket


def read_trace(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [(int(r["seq"]), float(r["send_ms"]), float(r["arrival_ms"]) if r["arrival_ms"] else None) for r in rows]


def schedule(trace):
    start = trace[0][1]
    arrivals = sorted((a, seq) for seq, _, a in trace if a is not None)
    buffer = JitterBuffer(capacity=16, prefetch=4)
    queue, lines, clock, i = [], [], None, 0
    while True:
        slot = arrivals[i][0] if clock is None and i < len(arrivals) else clock
        while i < len(arrivals) and arrivals[i][0] <= slot:
            seq = arrivals[i][1]
            packet = RtpPacket(payload_type=111, sequence_number=seq & 0xFFFF, timestamp=(seq * 960) & 0xFFFFFFFF)
            packet._data = b"\x00"
            _, frame = buffer.add(packet)
            if frame is not None:
                queue.append(frame.timestamp // 960)
            i += 1
        if clock is None:
            if not queue:
                if i >= len(arrivals):
                    break
                continue
            clock = slot
        if queue:
            lines.append(f"{clock - start:.3f},{queue.pop(0)}")
        elif i >= len(arrivals):
            break
        else:
            lines.append(f"{clock - start:.3f},z")
        clock += 20
    return lines


if __name__ == "__main__":
    print("play_ms,seq")
    print("\n".join(schedule(read_trace(sys.argv[1]))))
