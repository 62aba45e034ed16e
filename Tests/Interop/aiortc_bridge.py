#!/usr/bin/env python3
"""A minimal voice bridge (PROTOCOL.md v1) whose media side is aiortc: the callee for interop tests of a full
PolyCall (REST shell and media), independent of our own bridge and media stack.

    .venv/bin/python Tests/Interop/aiortc_bridge.py [--port 0] [--token TOKEN] [--no-pull]

Prints one JSON line `{"port": N}` on stdout once it listens on 127.0.0.1, then serves until stdin closes
(or SIGTERM). Logs go to stderr. Loopback only, like aiortc_peer.py (whose track and interface patch it uses).

Routes (PROTOCOL.md §1-3, §5):
  POST   /api/v1/call                        Bearer token (any non-empty one without --token) → callId, creds
  POST   /api/v1/call/{id}/sdp               X-Call-Token; {"sdp","mid"} → aiortc answers the (non-trickle) offer
  POST   /api/v1/call/{id}/sdp/pull          X-Call-Token; 409 until media is connected; → {"sdp": offer adding
                                             the agent's line, send-only from the bridge}
  POST   /api/v1/call/{id}/sdp/renegotiate   X-Call-Token; {"sdp": answer} → {}
  DELETE /api/v1/call/{id}                   X-Call-Token; closes the peer connection
  GET    /debug/calls                        (tests) {"active", "deleted", "connected", "received_samples", "echoed"}

The agent echoes the caller: what aiortc decodes from the caller's line is sent back, 20 ms at a time, on the
pulled line (or on the caller's own line with --no-pull). No events socket: `eventsUrl` is optional in the
protocol and the client must do without it. Tokens are never logged.
"""

import argparse
import asyncio
import hmac
import json
import logging
import secrets
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from aiortc import MediaStreamTrack, RTCConfiguration, RTCPeerConnection, RTCSessionDescription

from aiortc_peer import SourceTrack, received_frames  # also restricts aioice to 127.0.0.1 host candidates

log = logging.getLogger("aiortc_bridge")


class Call:
    """One provisioned call: its per-call token and aiortc connection."""

    def __init__(self, call_id: str, pull: bool) -> None:
        self.call_id = call_id
        self.token = secrets.token_hex(16)
        self.pull = pull
        self.pc: RTCPeerConnection | None = None
        self.echo: list[np.ndarray] = []
        self.received_samples = 0
        self.tasks: list[asyncio.Task] = []
        self.pulled = False
        self.was_connected = False

    async def consume(self, track: MediaStreamTrack) -> None:
        async for _, mono in received_frames(track):
            self.received_samples += len(mono)
            self.echo.append(mono)
            if len(self.echo) > 100:  # nobody listening yet (before the pull): keep the last 2 s at most
                del self.echo[0]

    async def answer(self, offer: str) -> str:
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.pc = pc

        @pc.on("track")
        def on_track(track: MediaStreamTrack) -> None:
            if track.kind == "audio":
                self.tasks.append(asyncio.ensure_future(self.consume(track)))

        @pc.on("connectionstatechange")
        def on_state() -> None:
            log.info("%s: connection %s", self.call_id, pc.connectionState)
            if pc.connectionState == "connected":
                self.was_connected = True

        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        for transceiver in pc.getTransceivers():
            if transceiver.kind != "audio":
                continue
            if self.pull:
                transceiver.direction = "recvonly"  # the caller's microphone only; the agent comes on the pull
            else:
                transceiver.sender.replaceTrack(SourceTrack(echo=self.echo))
                transceiver.direction = "sendrecv"
            break
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp

    async def pull_offer(self) -> str | None:
        pc = self.pc
        if pc is None or pc.connectionState != "connected":
            return None
        if not self.pulled:
            self.pulled = True
            pc.addTransceiver(SourceTrack(echo=self.echo), direction="sendonly")
        await pc.setLocalDescription(await pc.createOffer())
        return pc.localDescription.sdp

    async def apply_answer(self, answer: str) -> None:
        if self.pc is None:
            raise ValueError("no connection")
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        if self.pc is not None:
            await self.pc.close()
            self.pc = None


class Bridge:
    def __init__(self, loop: asyncio.AbstractEventLoop, token: str | None, pull: bool) -> None:
        self.loop = loop
        self.token = token
        self.pull = pull
        self.calls: dict[str, Call] = {}
        self.deleted = 0

    def run(self, coroutine, timeout: float = 15):
        """Runs a coroutine on the asyncio loop from an HTTP thread."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def provision(self, authorization: str | None, body: dict) -> tuple[int, dict]:
        presented = (authorization or "").removeprefix("Bearer ").strip()
        if not presented or (self.token is not None and not hmac.compare_digest(presented, self.token)):
            return 401, {"error": "unauthorized"}
        if body.get("mode", "voice-agent") not in ("voice-agent", "echo"):
            return 403, {"error": "mode not allowed"}
        call = Call(f"call-{secrets.token_hex(4)}", self.pull)
        self.calls[call.call_id] = call
        base = f"/api/v1/call/{call.call_id}"
        extra = {"pullUrl": f"{base}/sdp/pull", "renegotiateUrl": f"{base}/sdp/renegotiate"} if self.pull else {}
        creds = {"provider": "aiortc", "connectUrl": f"{base}/sdp", "token": call.token, "trackName": "agent-audio",
                 "iceServers": [], "extra": extra}
        log.info("provisioned %s", call.call_id)
        return 200, {"callId": call.call_id, "creds": creds}

    def per_call(self, method: str, path: str, call_token: str | None, body: dict) -> tuple[int, dict]:
        parts = path.strip("/").split("/")  # api v1 call {id} [sdp [pull|renegotiate]]
        call = self.calls.get(parts[3]) if len(parts) >= 4 else None
        if call is None:
            return 404, {"error": "no such call"}
        if not call_token or not hmac.compare_digest(call_token, call.token):
            return 401, {"error": "per-call token rejected"}
        route = "/".join(parts[4:])
        if method == "DELETE" and route == "":
            del self.calls[call.call_id]
            self.deleted += 1
            self.run(call.close())
            log.info("deleted %s", call.call_id)
            return 200, {}
        if method != "POST":
            return 405, {"error": "method not allowed"}
        if route == "sdp":
            if "sdp" not in body:
                return 400, {"error": "sdp missing"}
            return 200, {"sdp": self.run(call.answer(body["sdp"]))}
        if route == "sdp/pull" and self.pull:
            offer = self.run(call.pull_offer())
            return (409, {"error": "media not connected"}) if offer is None else (200, {"sdp": offer})
        if route == "sdp/renegotiate" and self.pull:
            if "sdp" not in body:
                return 400, {"error": "sdp missing"}
            self.run(call.apply_answer(body["sdp"]))
            return 200, {}
        return 404, {"error": "no such route"}

    def debug(self) -> dict:
        calls = list(self.calls.values())
        return {
            "active": len(calls),
            "deleted": self.deleted,
            "connected": sum(1 for call in calls if call.pc is not None and call.pc.connectionState == "connected"),
            "received_samples": sum(call.received_samples for call in calls),
            "pulled": sum(1 for call in calls if call.pulled),
        }


def handler_for(bridge: Bridge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
            log.debug("%s %s", self.command, self.path.split("?")[0])  # never headers: they carry tokens

        def reply(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def body(self) -> dict:
            length = int(self.headers.get("Content-Length") or 0)
            if length == 0:
                return {}
            parsed = json.loads(self.rfile.read(length))
            return parsed if isinstance(parsed, dict) else {}

        def handle_request(self, method: str) -> None:
            try:
                body = self.body() if method == "POST" else {}
            except (ValueError, UnicodeDecodeError):
                return self.reply(400, {"error": "malformed JSON"})
            path = self.path.split("?")[0]
            try:
                if method == "GET" and path == "/debug/calls":
                    return self.reply(200, bridge.debug())
                if method == "POST" and path == "/api/v1/call":
                    return self.reply(*bridge.provision(self.headers.get("Authorization"), body))
                if path.startswith("/api/v1/call/"):
                    return self.reply(*bridge.per_call(method, path, self.headers.get("X-Call-Token"), body))
                self.reply(404, {"error": "no such route"})
            except Exception as error:  # the client sees a 500; the test sees the reason on stderr
                log.exception("%s %s failed", method, path)
                self.reply(500, {"error": type(error).__name__})

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self.handle_request("GET")

        def do_POST(self) -> None:  # noqa: N802
            self.handle_request("POST")

        def do_DELETE(self) -> None:  # noqa: N802
            self.handle_request("DELETE")

    return Handler


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token", default=None, help="the web calling token to accept (default: any)")
    parser.add_argument("--no-pull", action="store_true", help="echo on the caller's line; no pull routes")
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO if arguments.verbose else logging.WARNING, stream=sys.stderr)

    loop = asyncio.get_running_loop()
    bridge = Bridge(loop, arguments.token, not arguments.no_pull)
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler_for(bridge))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"port": server.server_address[1]}), flush=True)

    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    # The parent closing our stdin (or exiting) also stops us.
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.buffer.read1(4096) else None)
    await stop.wait()
    server.shutdown()
    for call in list(bridge.calls.values()):
        await call.close()


if __name__ == "__main__":
    asyncio.run(main())
