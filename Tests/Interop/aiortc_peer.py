#!/usr/bin/env python3
"""A small aiortc WebRTC peer for PolyVoice's interoperability tests and ConnectBench.

Driven over stdin/stdout with JSON lines: one request per line, exactly one reply line each
(`{"ok": true, ...}` or `{"ok": false, "error": "..."}`). Logs go to stderr. The peer sends a tone
(or a WAV file, or an echo of what it receives) as Opus and reports what it received: packet count, RMS and the received tone's
frequency.

Only 127.0.0.1: aioice normally gathers every interface except loopback and aiortc adds a public
STUN server by default; both are switched off here, so every candidate and every check stays on
127.0.0.1.

Requests (`op`):
  offer        {tone?, wav?, echo?}     -> {sdp}   new connection, our offer (sendrecv audio)
  answer       {sdp, tone?, wav?, echo?}-> {sdp}   new connection, answers the remote offer
  apply_answer {sdp}                    -> {}      the remote answer to our offer
  apply_offer  {sdp}                    -> {sdp}   a re-offer on the current connection (e.g. a pull)
  wait         {state, timeout}         -> {state} waits for connectionState == state (or failed/closed)
  report       {skip?}                  -> {packets_received, packets_sent, samples, rms, frequency,
                                            connection_state, ice_state, dtls_state, srtp_profile}
  save         {path}                   -> {samples} writes what was received as a 48 kHz mono WAV
  call_bridge  {url, token?, mode?, tone?, wav?, echo?}
                                        -> {call_id, sdp} calls a voice bridge (PROTOCOL.md §1-3): provision,
                                                   connect with our offer, pull the agent's line and answer
  timing       {path}                   -> {}      writes JSON for latency measurements (CallBench): send_start (monotonic
                                                   s when the source's sample 0 was due), frames ([arrival monotonic s,
                                                   index of its first sample in what `save` writes, its pts (RTP
                                                   timestamp; lost packets leave gaps)]), setup_s (call_bridge:
                                                   provision to connectionState "connected")
  hang_up      {}                       -> {}      DELETE the bridge call (best effort), close the connection
  close        {}                       -> {}
  quit         {}                       -> {}      then exits
"""

import asyncio
import fractions
import json
import logging
import math
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import wave

import aioice.ice
import av
import numpy as np
from aiortc import MediaStreamTrack, RTCConfiguration, RTCPeerConnection, RTCSessionDescription

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms


def loopback_only(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """Host candidates on 127.0.0.1 only (aioice skips loopback by default)."""
    return ["127.0.0.1"] if use_ipv4 else []


aioice.ice.get_host_addresses = loopback_only


class SourceTrack(MediaStreamTrack):
    """Mono 48 kHz audio paced in real time: a sine tone, a WAV file looped, or an echo of `echo`
    (received samples, consumed as they are sent)."""

    kind = "audio"

    def __init__(self, tone: float = 1000.0, wav: str | None = None, echo: list | None = None) -> None:
        super().__init__()
        self.echo = echo
        self.samples = self._load(wav) if wav else None
        self.tone = tone
        self.position = 0
        self.start: float | None = None

    @staticmethod
    def _load(path: str) -> np.ndarray:
        with wave.open(path, "rb") as handle:
            if handle.getsampwidth() != 2 or handle.getframerate() != SAMPLE_RATE:
                raise ValueError("WAV must be 16-bit 48 kHz")
            data = np.frombuffer(handle.readframes(handle.getnframes()), dtype=np.int16)
            return data.reshape(-1, handle.getnchannels())[:, 0].copy()

    async def recv(self) -> av.AudioFrame:
        if self.start is None:
            self.start = time.monotonic()
        due = self.start + self.position / SAMPLE_RATE
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        index = np.arange(self.position, self.position + FRAME_SAMPLES)
        if self.echo is not None:
            pcm = np.zeros(FRAME_SAMPLES, dtype=np.int16)
            filled = 0
            while self.echo and filled < FRAME_SAMPLES:
                chunk = self.echo[0]
                take = min(len(chunk), FRAME_SAMPLES - filled)
                pcm[filled : filled + take] = chunk[:take]
                filled += take
                if take == len(chunk):
                    self.echo.pop(0)
                else:
                    self.echo[0] = chunk[take:]
        elif self.samples is not None:
            pcm = self.samples[index % len(self.samples)]
        else:
            pcm = (0.3 * 32767 * np.sin(2 * math.pi * self.tone * index / SAMPLE_RATE)).astype(np.int16)
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self.position
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        self.position += FRAME_SAMPLES
        return frame


def first_channel(frame) -> np.ndarray:
    """A received audio frame's first channel as int16 samples."""
    data = frame.to_ndarray().reshape(-1)
    return data.reshape(-1, len(frame.layout.channels))[:, 0].astype(np.int16)


async def received_frames(track: MediaStreamTrack):
    """Each received audio frame with its first channel, until the track ends."""
    while True:
        try:
            frame = await track.recv()
        except Exception:
            return
        yield frame, first_channel(frame)


def dominant_frequency(samples: np.ndarray) -> float:
    """The strongest frequency (Hz) of a mono signal: Hann-windowed, zero-padded FFT, parabolic peak."""
    if len(samples) < 1024:
        return 0.0
    signal = samples.astype(np.float64) * np.hanning(len(samples))
    size = 1 << 20
    spectrum = np.abs(np.fft.rfft(signal, size))
    peak = int(np.argmax(spectrum[1:-1])) + 1
    left, middle, right = np.log(spectrum[peak - 1 : peak + 2] + 1e-12)
    offset = 0.5 * (left - right) / (left - 2 * middle + right)
    return float((peak + offset) * SAMPLE_RATE / size)


class Peer:
    def __init__(self) -> None:
        self.pc: RTCPeerConnection | None = None
        self.received: list[np.ndarray] = []
        self.echo: list[np.ndarray] | None = None
        self.tasks: list[asyncio.Task] = []
        self.bridge: dict | None = None
        self.arrivals: list[tuple[float, int, int | None]] = []
        self.received_samples = 0
        self.source_track: SourceTrack | None = None
        self.call_started: float | None = None
        self.connected_at: float | None = None

    async def new_connection(self) -> RTCPeerConnection:
        await self.close()
        self.received = []
        self.arrivals = []
        self.received_samples = 0
        self.connected_at = None
        self.echo = None
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))

        @pc.on("connectionstatechange")
        def on_state() -> None:
            if pc.connectionState == "connected" and self.connected_at is None:
                self.connected_at = time.monotonic()

        @pc.on("track")
        def on_track(track: MediaStreamTrack) -> None:
            if track.kind == "audio":
                self.tasks.append(asyncio.ensure_future(self.consume(track)))

        self.pc = pc
        return pc

    async def consume(self, track: MediaStreamTrack) -> None:
        async for frame, mono in received_frames(track):
            self.arrivals.append((time.monotonic(), self.received_samples, frame.pts if frame.pts is not None else -1))
            self.received_samples += len(mono)
            self.received.append(mono)
            if self.echo is not None:
                self.echo.append(mono)

    def source(self, request: dict) -> SourceTrack:
        if request.get("echo"):
            self.echo = []
        self.source_track = SourceTrack(request.get("tone", 1000.0), request.get("wav"), self.echo)
        return self.source_track

    async def offer(self, request: dict) -> dict:
        pc = await self.new_connection()
        pc.addTransceiver(self.source(request), direction="sendrecv")
        await pc.setLocalDescription(await pc.createOffer())
        return {"sdp": pc.localDescription.sdp}

    async def answer(self, request: dict) -> dict:
        pc = await self.new_connection()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="offer"))
        track = self.source(request)
        for transceiver in pc.getTransceivers():
            if transceiver.kind == "audio":
                transceiver.sender.replaceTrack(track)
                transceiver.direction = "sendrecv"
                break
        await pc.setLocalDescription(await pc.createAnswer())
        return {"sdp": pc.localDescription.sdp}

    async def apply_answer(self, request: dict) -> dict:
        await self.require().setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="answer"))
        return {}

    async def apply_offer(self, request: dict) -> dict:
        pc = self.require()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        return {"sdp": pc.localDescription.sdp}

    async def wait(self, request: dict) -> dict:
        pc = self.require()
        wanted = request.get("state", "connected")
        deadline = time.monotonic() + float(request.get("timeout", 5))
        while pc.connectionState not in (wanted, "failed", "closed") and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        return {"state": pc.connectionState}

    async def report(self, request: dict) -> dict:
        pc = self.require()
        received = np.concatenate(self.received) if self.received else np.zeros(0, dtype=np.int16)
        tail = received[int(float(request.get("skip", 0.5)) * SAMPLE_RATE) :].astype(np.float64)
        packets_received = packets_sent = 0
        for stats in (await pc.getStats()).values():
            if stats.type == "inbound-rtp":
                packets_received += stats.packetsReceived
            elif stats.type == "outbound-rtp":
                packets_sent += stats.packetsSent
        ice_state = dtls_state = srtp_profile = None
        for transceiver in pc.getTransceivers():
            dtls = transceiver.receiver.transport
            if dtls is not None:
                dtls_state = dtls.state
                ice_state = dtls.transport.state
                ssl = getattr(dtls, "_ssl", None)  # private: the negotiated profile is not public API
                selected = ssl.get_selected_srtp_profile() if ssl is not None and dtls_state == "connected" else None
                srtp_profile = selected.decode() if selected else None
                break
        return {
            "packets_received": packets_received,
            "packets_sent": packets_sent,
            "samples": int(len(received)),
            "rms": float(np.sqrt(np.mean(tail**2))) if len(tail) else 0.0,
            "frequency": dominant_frequency(tail[: SAMPLE_RATE * 2]),
            "connection_state": pc.connectionState,
            "ice_state": ice_state,
            "dtls_state": dtls_state,
            "srtp_profile": srtp_profile,
        }

    async def save(self, request: dict) -> dict:
        received = np.concatenate(self.received) if self.received else np.zeros(0, dtype=np.int16)
        with wave.open(request["path"], "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(SAMPLE_RATE)
            handle.writeframes(received.tobytes())
        return {"samples": int(len(received))}

    async def call_bridge(self, request: dict) -> dict:
        """The caller's side of PROTOCOL.md: provision, publish our offer, pull the agent's audio."""
        base = request["url"]
        self.call_started = time.monotonic()
        provision = await post(
            urllib.parse.urljoin(base, "api/v1/call"),
            {"mode": request.get("mode", "voice-agent")},
            {"Authorization": f"Bearer {request.get('token', '')}"},
        )
        creds = provision.get("creds", {})
        extra = creds.get("extra") or {}
        headers = {"X-Call-Token": creds.get("token", "")}
        self.bridge = {"base": base, "call_id": provision["callId"], "headers": headers}
        offer = await self.offer(request)
        answer = await post(urllib.parse.urljoin(base, creds["connectUrl"]), {"sdp": offer["sdp"], "mid": "0"}, headers)
        await self.apply_answer({"sdp": answer["sdp"]})
        if "pullUrl" in extra:
            # The bridge refuses a pull until media is connected (PROTOCOL.md §3): wait for it, then
            # retry briefly while the bridge's side catches up (409).
            await self.wait({"state": "connected", "timeout": 10})
            pull = await pull_when_ready(urllib.parse.urljoin(base, extra["pullUrl"]), headers)
            pull_answer = await self.apply_offer({"sdp": pull["sdp"]})
            await post(urllib.parse.urljoin(base, extra["renegotiateUrl"]), {"sdp": pull_answer["sdp"]}, headers)
        return {"call_id": provision["callId"], "sdp": answer["sdp"]}

    async def timing(self, request: dict) -> dict:
        started = self.call_started
        setup = self.connected_at - started if started is not None and self.connected_at is not None else None
        track = self.source_track
        result = {
            "send_start": track.start if track is not None else None,
            "frames": self.arrivals,
            "setup_s": setup,
        }
        with open(request["path"], "w") as handle:
            json.dump(result, handle)
        return {}

    async def hang_up(self, request: dict) -> dict:
        await self.close()
        if self.bridge is not None:
            bridge, self.bridge = self.bridge, None
            url = urllib.parse.urljoin(bridge["base"], f"api/v1/call/{bridge['call_id']}")
            try:
                await asyncio.to_thread(http, "DELETE", url, None, bridge["headers"])
            except Exception:
                pass  # best effort (PROTOCOL.md §5)
        return {}

    async def close(self, request: dict | None = None) -> dict:
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        if self.pc is not None:
            await self.pc.close()
            self.pc = None
        return {}

    def require(self) -> RTCPeerConnection:
        if self.pc is None:
            raise RuntimeError("no connection")
        return self.pc


def http(method: str, url: str, body: dict | None, headers: dict) -> dict:
    """One JSON request (blocking; run in a thread). Only loopback bridges: this peer never leaves 127.0.0.0/8."""
    host = urllib.parse.urlparse(url).hostname or ""
    if not host.startswith("127."):
        raise ValueError(f"refusing a non-loopback bridge host {host}")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    for name, value in headers.items():
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=15) as response:
        text = response.read()
    return json.loads(text) if text.strip() else {}


async def post(url: str, body: dict, headers: dict) -> dict:
    return await asyncio.to_thread(http, "POST", url, body, headers)


async def pull_when_ready(url: str, headers: dict, attempts: int = 50) -> dict:
    """POST the pull, retrying 409 (media not yet connected on the bridge's side) every 100 ms."""
    for _ in range(attempts - 1):
        try:
            return await post(url, {}, headers)
        except urllib.error.HTTPError as error:
            if error.code != 409:
                raise
            await asyncio.sleep(0.1)
    return await post(url, {}, headers)


async def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    peer = Peer()
    operations = {
        "offer": peer.offer,
        "answer": peer.answer,
        "apply_answer": peer.apply_answer,
        "apply_offer": peer.apply_offer,
        "wait": peer.wait,
        "report": peer.report,
        "save": peer.save,
        "call_bridge": peer.call_bridge,
        "timing": peer.timing,
        "hang_up": peer.hang_up,
        "close": peer.close,
    }
    while line := await reader.readline():
        request = json.loads(line)
        op = request.get("op")
        if op == "quit":
            await peer.close()
            print(json.dumps({"ok": True}), flush=True)
            return
        try:
            reply = {"ok": True, **await operations[op](request)}
        except Exception as error:  # reported to the driver, which fails the test
            reply = {"ok": False, "error": f"{op}: {type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)
    await peer.close()


if __name__ == "__main__":
    asyncio.run(main())
