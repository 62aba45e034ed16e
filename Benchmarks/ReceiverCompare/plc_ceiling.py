"""The ceiling of the play agent's stream: what libopus's concealment (and FEC) achieve, perfectly timed.

The speech ReceiverCompare plays (its speech.wav) is encoded as the bridge's play agent codes it without FEC (libopus,
VOIP, 48 kbit/s, wideband, complexity 9; --bitrate/--fullband for other senders), packets are dropped by a seeded
model (5 % uniform, or Gilbert-Elliott with mean loss 5 % and mean bursts of 3), and Debian's libopus (ctypes)
decodes the rest and conceals each lost packet with its PLC, every packet on time. PESQ-WB by scripts/quality.py;
median over the loss seeds. A real-time receiver of the same stream cannot do better by timing alone.

--fec: the stream as the play agent codes it when the receiver's reports show loss (in-band FEC, loss hint 5 %,
64 kbit/s: 48 plus a third, `SenderCodecPolicy`); a lost packet whose successor arrived is decoded from that
successor's FEC data (libopus decode_fec), the others concealed by PLC: the ceiling of the FEC runs.

--silence: how the encoder takes runs of digital silence (the speech has four) from their third frame, as
`SilencePackets` does: `coded` (default) codes every frame as it is; `stored` sends one packet coded from silence at
set-up and resets the encoder before sound (our senders without FEC, and before 2026-12-03 with it too); `cheap`
codes them at complexity 0 (our senders while they code FEC).

--two-sided: a lost packet whose successor arrived is concealed as our jitter buffer does (`GapInterpolation`):
the PLC cross-faded into the successor's audio, decoded ahead on a copy of the decoder state and extended backwards
by its pitch period, where that audio starts voiced. (With --fec the successor's FEC comes first, as in our buffer;
the buffer also blends where that successor carries no LBRR, which this model leaves to libopus's PLC.)

Usage: plc_ceiling.py SPEECH.wav [--seeds 1-6] [--bitrate 48000] [--fullband] [--plc-ms 10|20] [--fec]
                      [--silence coded|stored|cheap] [--two-sided]
"""

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPUS = ctypes.CDLL("libopus.so.0")
OPUS.opus_encoder_create.restype = ctypes.c_void_p
OPUS.opus_decoder_create.restype = ctypes.c_void_p
DECODER_BYTES = OPUS.opus_decoder_get_size(1)  # the state is position independent and may be copied (opus.h)
APPLICATION_VOIP, SET_BITRATE, SET_MAX_BANDWIDTH, SET_COMPLEXITY, SET_INBAND_FEC = 2048, 4002, 4004, 4010, 4012
SET_PACKET_LOSS_PERC, RESET_STATE = 4014, 4028
CODED_SILENT_FRAMES = 2  # SilencePackets.codedFrames
FEC_LOSS_HINT = 5  # percent: the loss the relay scenarios impose, as the receivers' reports tell the sender
BANDWIDTH_WIDEBAND = 1103
FRAME = 960  # 20 ms at 48 kHz


def encode(speech, bitrate, fullband, fec, silence="coded"):
    error = ctypes.c_int()
    encoder = ctypes.c_void_p(OPUS.opus_encoder_create(48000, 1, APPLICATION_VOIP, ctypes.byref(error)))

    def control(request, value=None):
        OPUS.opus_encoder_ctl(encoder, ctypes.c_int(request), *([] if value is None else [ctypes.c_int(value)]))

    settings = [(SET_BITRATE, bitrate), (SET_COMPLEXITY, 9), (SET_INBAND_FEC, int(fec)),
                (SET_PACKET_LOSS_PERC, FEC_LOSS_HINT if fec else 0)]
    for request, value in settings + ([] if fullband else [(SET_MAX_BANDWIDTH, BANDWIDTH_WIDEBAND)]):
        control(request, value)
    packets, buffer = [], (ctypes.c_ubyte * 1500)()

    def code(frame):
        size = OPUS.opus_encode(encoder, frame.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)), FRAME, buffer, 1500)
        return bytes(buffer[:size])

    stored = code(np.zeros(FRAME, dtype=np.int16))
    control(RESET_STATE)
    run = 0
    for start in range(0, len(speech), FRAME):
        frame = np.zeros(FRAME, dtype=np.int16)
        frame[:len(speech[start:start + FRAME])] = speech[start:start + FRAME]
        run = run + 1 if not frame.any() else 0
        if silence == "stored" and run > CODED_SILENT_FRAMES:
            packets.append(stored)
            continue
        if silence == "stored" and run == 0 and packets and packets[-1] is stored:
            control(RESET_STATE)
        if silence == "cheap" and run in (0, CODED_SILENT_FRAMES + 1):
            control(SET_COMPLEXITY, 0 if run else 9)
        packets.append(code(frame))
    OPUS.opus_encoder_destroy(encoder)
    return packets


def voiced_lag(x, lowest=96, highest=640, window=240, voiced=0.7):
    """GapInterpolation.voicedLag: the lag whose `window` samples best match `x`'s first, if that reaches `voiced`."""
    x = x.astype(np.float64)
    head = x[:window]
    best, best_lag = voiced, None
    for lag in range(lowest, min(highest, len(x) - window)):
        other = x[lag:lag + window]
        denominator = np.sqrt(np.dot(head, head) * np.dot(other, other))
        correlation = np.dot(head, other) / denominator if denominator > 0 else 0
        if correlation > best:
            best, best_lag = correlation, lag
    return best_lag


def blend(concealment, following):
    """GapInterpolation.blend: `concealment` cross-faded (raised cosine) into `following` repeated backwards."""
    lag = voiced_lag(following)
    if lag is None:
        return concealment
    n = len(concealment)
    j = np.arange(n)
    extended = following[(j - n) % lag].astype(np.float64)
    weight = 0.5 + 0.5 * np.cos(np.pi * j / (n - 1))
    return np.clip(np.round(weight * concealment + (1 - weight) * extended), -32768, 32767).astype(np.int16)


def decode(packets, lost, plc_samples, fec, two_sided=False):
    """Each packet decoded in its slot; a lost one from its successor's FEC data if `fec` and that arrived, else
    concealed by PLC in calls of `plc_samples` (and with `two_sided` blended into the successor when that arrived)."""
    error = ctypes.c_int()
    decoder = ctypes.c_void_p(OPUS.opus_decoder_create(48000, 1, ctypes.byref(error)))
    ahead = ctypes.c_void_p(OPUS.opus_decoder_create(48000, 1, ctypes.byref(error)))
    out = np.zeros(FRAME * len(packets), dtype=np.int16)

    def decode_into(index, packet, from_fec):
        """Slot `index` decoded from `packet` (its own data, or with `from_fec` the FEC data it carries)."""
        data = (ctypes.c_ubyte * len(packet)).from_buffer_copy(packet)
        target = out[index * FRAME:].ctypes.data_as(ctypes.POINTER(ctypes.c_int16))
        OPUS.opus_decode(decoder, data, len(packet), target, FRAME, int(from_fec))

    for index, packet in enumerate(packets):
        following = index + 1
        if index in lost and fec and following < len(packets) and following not in lost:
            decode_into(index, packets[following], from_fec=True)
        elif index in lost:
            for part in range(0, FRAME, plc_samples):
                target = out[index * FRAME + part:].ctypes.data_as(ctypes.POINTER(ctypes.c_int16))
                OPUS.opus_decode(decoder, None, 0, target, plc_samples, 0)
            if two_sided and following < len(packets) and following not in lost:
                ctypes.memmove(ahead, decoder, DECODER_BYTES)
                successor = np.zeros(FRAME, dtype=np.int16)
                data = (ctypes.c_ubyte * len(packets[following])).from_buffer_copy(packets[following])
                OPUS.opus_decode(ahead, data, len(data), successor.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)),
                                 FRAME, 0)
                slot = slice(index * FRAME, (index + 1) * FRAME)
                out[slot] = blend(out[slot].astype(np.float64), successor)
        else:
            decode_into(index, packet, from_fec=False)
    OPUS.opus_decoder_destroy(decoder)
    OPUS.opus_decoder_destroy(ahead)
    return out


def lost_packets(kind, seed, count, first):
    """Indices lost from `first` on (the relay passes the call's set-up unimpaired)."""
    random = np.random.default_rng(seed)
    lost, bad = set(), False
    for index in range(count):
        if kind == "uniform":
            bad = random.random() < 0.05
        else:  # Gilbert-Elliott: the bad state loses everything; mean burst 3, mean loss 5 %
            bad = random.random() >= 1 / 3 if bad else random.random() < 0.05 / (0.95 * 3)
        if bad and index >= first:
            lost.add(index)
    return lost


def pesq_wb(reference, samples, scratch):
    wavfile.write(scratch, 48000, samples)
    output = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "quality.py"), reference, scratch, "--json"],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output)["pesq_wb"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("speech")
    parser.add_argument("--seeds", default="1-6")
    parser.add_argument("--bitrate", type=int, help="bit/s (default 48000, or 64000 with --fec)")
    parser.add_argument("--fullband", action="store_true")
    parser.add_argument("--plc-ms", type=int, default=10, choices=[10, 20], help="samples per PLC call")
    parser.add_argument("--fec", action="store_true", help="in-band FEC coded, and used for lone losses")
    parser.add_argument("--silence", choices=["coded", "stored", "cheap"], default="coded",
                        help="digital silence from its third frame: coded as is, the stored packet, complexity 0")
    parser.add_argument("--two-sided", action="store_true",
                        help="lone losses concealed as GapInterpolation does (PLC cross-faded into the successor)")
    args = parser.parse_args()
    bitrate = args.bitrate or (64000 if args.fec else 48000)
    low, _, high = args.seeds.partition("-")
    seeds = range(int(low), int(high or low) + 1)
    rate, speech = wavfile.read(args.speech)
    if rate != 48000 or speech.ndim != 1:
        sys.exit("plc_ceiling.py: needs 48 kHz mono speech (ReceiverCompare's speech.wav)")
    packets = encode(speech, bitrate, args.fullband, args.fec, args.silence)
    first = int(1.5 * 50)  # the speech starts 2 s in; losses from 1.5 s as in the relay scenarios
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = os.path.join(scratch_dir, "out.wav")
        def play(lost):
            return decode(packets, lost, args.plc_ms * 48, args.fec, args.two_sided)

        print(f"clean: PESQ-WB {pesq_wb(args.speech, play(set()), scratch):.2f}")
        results = {}
        for kind in ("uniform", "bursty"):
            scores = [pesq_wb(args.speech, play(lost_packets(kind, seed, len(packets), first)), scratch)
                      for seed in seeds]
            results[kind] = round(statistics.median(scores), 2)
            print(f"{kind}: median PESQ-WB {results[kind]:.2f} over seeds {list(seeds)}: "
                  + ", ".join(f"{s:.2f}" for s in scores))
    print("RESULT_JSON " + json.dumps({"bitrate": bitrate, "fullband": args.fullband, "fec": args.fec,
                                      "silence": args.silence, "two_sided": args.two_sided, **results}))


if __name__ == "__main__":
    main()
