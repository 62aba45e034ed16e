"""Our receiver beside libwebrtc's (headless Chromium) on the same sender and the same impairments, in one run.

One `polyvoice bridge --agent play:FILE` on a shared media port plays the same speech to every call; a
`polyvoice impair --per-client` relay in front of that port impairs what the bridge sends (each client gets its own
copy of the impairment, seeded alike, so both receivers lose the same packets of their stream and see the same
delays). Per scenario and relay seed, two calls run at once: `polyvoice call --output` (ours) and a page in headless
Chromium (receiver.html: a PROTOCOL.md client that records what libwebrtc plays through WebAudio). A helper HTTP
server here serves that page and proxies the bridge's REST routes on the same origin (Chromium blocks the bridge's
other origin); both receivers provision through it. With --no-fec it also rewrites both receivers' SDP to
`useinbandfec=0`, so the sender codes without in-band FEC (PLC only). PESQ-WB and STOI of what each receiver played
come from scripts/quality.py (also per utterance, each aligned on its own); concealment and jitter buffer delay from
each side's stats (W3C inbound-rtp).

Each call has its own encoder. Left to the receivers' RTCP reports it codes with the expected loss until a
receiver's first report (libwebrtc's comes after the speech has started, ours before) and then as that receiver's
reports say, so the two streams would differ. So the bridge is started per scenario with `--agent-loss-hint` set to
the scenario's mean loss (0 on clean and jitter, 5 on the 5 % loss scenarios): every call is coded alike, from the
first packet to the last, and the receivers get the same packets. `--adaptive-sender` leaves the coding to each
receiver's reports instead (what a report-driven sender does in a real call). PESQ-WB "from the first pause" scores
only the speech after the first run of digital silence, where an adaptive sender's encoders have met again.

Everything runs in a network namespace of its own that has only a loopback interface (run.sh makes it), so
nothing can be sent anywhere but 127.0.0.0/8.

`--variant NAME=PATH` (repeatable) adds another build of our client as a further receiver in every run, on its own
copy of the same impairment: a change to our receiver is then judged by its paired difference from `ours` on the same
streams, which cancels the seed-to-seed spread (a run-to-run spread of one build remains; measure it with a variant
that is the same build).

`--impair-after S` starts the impairment later than the default 1.5 s (the set-up and the lead silence pass clean), for
example inside the first utterance, where a receiver must grow its delay while speech plays.

Usage: run.py [--seeds 1,2,3] [--scenarios clean,loss-5pct,...] [--no-fec] [--adaptive-sender] [--ours-only]
              [--polyvoice PATH] [--variant NAME=PATH ...] [--impair-after S] [--repeat N] [--out DIR]
"""

import argparse
import base64
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from scipy.io import wavfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# Relay options per scenario (impairing what the bridge sends, i.e. what the receivers get; --burst is in ms of
# 20 ms packets: 60 ms is a mean burst of 3).
SCENARIOS = {
    "clean": [],
    "loss-5pct": ["--loss", "5"],
    "jitter-40+30ms": ["--delay", "40", "--jitter", "30"],
    "bursty-5pct-b3": ["--loss", "5", "--burst", "60"],
}
# The call's set-up (ICE, DTLS, pull) passes unimpaired; the speech starts 2 s into the agent's audio.
IMPAIR_AFTER_S = 1.5
LEAD_SILENCE_S = 2.0
# Every recording is scored against the same span of the played file, from here (in the lead silence) to its end.
# PESQ-WB of one and the same audio moves by up to 0.1 with how much leading silence the span keeps (a 10 ms trim
# took 4.44 to 4.54), and quality.py's alignment keeps all of it for a recording that starts early (ours, on its
# call's clock) but cuts it for one that starts late (Chromium's capture), which marked our clean calls down 0.06.
SCORED_FROM_S = 1.0
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
    "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
    "--autoplay-policy=no-user-gesture-required", "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions", "--enable-logging=stderr",
]


def run(command):
    return subprocess.run(command, check=True, text=True, capture_output=True).stdout


def make_speech(out, repeat=1):
    """2 s of silence, two espeak-ng voices (said `repeat` times, 0.5 s apart), 1 s of silence: 48 kHz 16-bit mono
    (what the agent plays)."""
    parts = [
        (["espeak-ng", "-v", "en-us+m3", "-s", "160"],
         "The quick brown fox jumps over the lazy dog. Voice agents answer questions about your account."),
        (["espeak-ng", "-v", "en+f3", "-s", "160"],
         "Thank you for calling. I can help you change your booking or check the weather in Paris."),
    ]
    files = []
    for index, (command, text) in enumerate(parts):
        raw = os.path.join(out, f"voice{index}-tts.wav")
        run(command + ["-w", raw, text])
        files.append(raw)
    if repeat > 1:
        gap = os.path.join(out, "gap.wav")
        rate = run(["soxi", "-r", files[0]]).strip()  # sox joins files of one rate: espeak-ng's
        run(["sox", "-D", "-n", "-r", rate, "-b", "16", "-c", "1", gap, "trim", "0", "0.5"])
        files = (files + [gap]) * (repeat - 1) + files
    speech = os.path.join(out, "speech.wav")
    run(["sox", "-D", *files, "-r", "48000", "-b", "16", "-c", "1", speech, "norm", "-3",
         "pad", str(LEAD_SILENCE_S), "1"])
    microphone = os.path.join(out, "microphone.wav")
    run(["sox", "-D", "-n", "-r", "48000", "-b", "16", "-c", "1", microphone, "trim", "0", "1"])
    return speech, microphone


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Helper(ThreadingHTTPServer):
    """Serves the page and proxies /api/ to the bridge; collects the page's log and result."""

    daemon_threads = True

    def __init__(self, bridge_url):
        super().__init__(("127.0.0.1", 0), HelperHandler)
        self.bridge_url = bridge_url
        self.no_fec = False
        self.reset()

    def reset(self):
        self.result = None
        self.result_ready = threading.Event()
        self.page_log = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/"


class HelperHandler(BaseHTTPRequestHandler):
    server: Helper

    def log_message(self, *_):
        pass

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def reply(self, status, body, content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        files = {"/receiver.html": "text/html", "/capture-worklet.js": "text/javascript"}
        path = urllib.parse.urlparse(self.path).path
        if path not in files:
            return self.reply(404, b"not found", "text/plain")
        with open(os.path.join(HERE, path.lstrip("/")), "rb") as handle:
            self.reply(200, handle.read(), files[path])

    def do_POST(self):
        if self.path == "/log":
            self.server.page_log.append(self.body().decode(errors="replace"))
            return self.reply(204, b"")
        if self.path == "/result":
            self.server.result = json.loads(self.body())
            self.server.result_ready.set()
            return self.reply(204, b"")
        self.proxy("POST")

    def do_DELETE(self):
        self.proxy("DELETE")

    def proxy(self, method):
        if not self.path.startswith("/api/"):
            return self.reply(404, b"not found", "text/plain")
        body = self.body() if method == "POST" else None
        if body and self.server.no_fec:
            body = body.replace(b"useinbandfec=1", b"useinbandfec=0")
        headers = {name: self.headers[name] for name in ("Authorization", "X-Call-Token", "Content-Type", "Accept")
                   if self.headers.get(name)}
        request = urllib.request.Request(urllib.parse.urljoin(self.server.bridge_url, self.path), data=body,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, payload, response_headers = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, payload, response_headers = error.code, error.read(), error.headers
        if status == 200 and self.path == "/api/v1/call":
            payload = self.events_to_bridge(payload)
        extra = [("Retry-After", response_headers["Retry-After"])] if response_headers.get("Retry-After") else []
        self.reply(status, payload, response_headers.get("Content-Type") or "application/json", extra)

    def events_to_bridge(self, payload):
        """The events WebSocket goes to the bridge itself (an absolute URL): the helper proxies only REST."""
        call = json.loads(payload)
        extra = call.get("creds", {}).get("extra", {})
        if "eventsUrl" in extra:
            extra["eventsUrl"] = urllib.parse.urljoin(self.server.bridge_url, extra["eventsUrl"])
        return json.dumps(call).encode()


def start_bridge(polyvoice, speech, media_port, relay_port, log, coding):
    bridge = subprocess.Popen(
        [polyvoice, "bridge", "--port", "0", "--allow-any-token", "--agent", f"play:{speech}",
         "--media-port", str(media_port), "--advertise", f"127.0.0.1:{relay_port}", "--rate", "1000"] + coding,
        stdout=subprocess.PIPE, stderr=log, text=True)
    for line in bridge.stdout:
        match = re.search(r"listening on (http://\S+/)", line)
        if match:
            threading.Thread(target=lambda: [None for _ in bridge.stdout], daemon=True).start()
            return bridge, match.group(1)
    raise RuntimeError("the bridge exited before listening")


def ours(polyvoice, helper_url, seconds, wav, log):
    """Our receiver: `polyvoice call` through the helper; returns the Popen (its stdout is NDJSON)."""
    environment = dict(os.environ, POLYVOICE_WEBRTC_TOKEN="bench")
    return subprocess.Popen(
        [polyvoice, "call", "--bridge", helper_url, "--input", "null", "--output", wav, "--duration", str(seconds),
         "--json"], stdout=subprocess.PIPE, stderr=log, text=True, env=environment)


def paired(runs, side, base, key="pesq_wb", index=None):
    """`side` minus `base` `key` (its `index`th entry, for a list) over the runs that hold both: mean, its standard
    error, and the win count."""
    def value(figures):
        return figures[key] if index is None else figures[key][index]
    values = [(value(run[side]), value(run[base])) for run in runs if side in run and base in run]
    pairs = [a - b for a, b in values if a is not None and b is not None]  # an utterance quality.py could not score
    if len(pairs) < 2:
        return None
    return {
        "side": side, "base": base, "n": len(pairs), "mean": round(statistics.mean(pairs), 3),
        "standard_error": round(statistics.stdev(pairs) / len(pairs) ** 0.5, 3),
        "ahead": sum(d > 0 for d in pairs), "behind": sum(d < 0 for d in pairs),
    }


def ours_stats(stdout):
    summary = next((json.loads(line) for line in stdout.splitlines() if '"summary"' in line), None)
    if summary is None or summary.get("result") != "ended":
        raise RuntimeError(f"our call did not end cleanly: {summary}")
    playout = summary["playout"]
    return {
        "concealed_pct": 100 * playout["concealedSamples"] / max(playout["totalSamplesReceived"], 1),
        "concealment_events": playout["concealmentEvents"],
        "delay_ms": playout["meanDelayMs"],
        "packets_lost": summary["packetsLost"],
        "discarded": playout["packetsDiscarded"],
    }


def chromium_stats(inbound):
    emitted = max(inbound.get("jitterBufferEmittedCount", 0), 1)
    return {
        "concealed_pct": 100 * inbound.get("concealedSamples", 0) / max(inbound.get("totalSamplesReceived", 0), 1),
        "concealment_events": inbound.get("concealmentEvents", 0),
        "delay_ms": 1000 * inbound.get("jitterBufferDelay", 0) / emitted,
        "packets_lost": inbound.get("packetsLost", 0),
        "discarded": inbound.get("packetsDiscarded", 0),
    }


def sender_loss_hint(scenario):
    """The loss every call's stream is coded for (`polyvoice bridge --agent-loss-hint`): the scenario's mean loss."""
    options = SCENARIOS[scenario]
    return int(options[options.index("--loss") + 1]) if "--loss" in options else 0


def same_stream_from(samples, rate):
    """Seconds into the speech after which an adaptive sender (`--adaptive-sender`) codes alike for receivers that
    report alike: the end of its first run of digital silence (three frames or more) after the speech starts. Each
    call has its own encoder, and until a receiver's first RTCP report it codes with the expected loss (FEC, more
    bits); libwebrtc reports about 2.5 s in, after the speech has started, so the first utterance can be coded
    differently for each receiver."""
    frame = rate // 50
    silent_frames = 0
    for start in range(int(np.flatnonzero(samples)[0]), len(samples), frame):
        if not samples[start:start + frame].any():
            silent_frames += 1
        elif silent_frames >= 3:
            return start / rate
        else:
            silent_frames = 0
    return 0.0


def score(speech, wav, same_stream_s):
    """quality.py's figures from SCORED_FROM_S on (with each utterance's PESQ-WB, `pesq_wb_utterances`), and PESQ-WB
    from `same_stream_s` on (`pesq_wb_same_stream`)."""
    command = [os.path.join(ROOT, ".venv", "bin", "python"), os.path.join(ROOT, "scripts", "quality.py"),
               speech, wav, "--json", "--max-delay", "3"]
    figures = json.loads(run(command + ["--from", str(SCORED_FROM_S), "--utterances"]))
    figures["pesq_wb_same_stream"] = json.loads(run(command + ["--from", str(same_stream_s)]))["pesq_wb"]
    return figures


def one_run(args, helper, speech, microphone, relay_port, media_port, scenario, seed, out):
    """Both receivers at once through a fresh relay; returns {"ours": {...}, "chromium": {...}}."""
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "log.txt"), "w")
    relay = subprocess.Popen(
        [args.polyvoice, "impair", "--listen", f"127.0.0.1:{relay_port}", "--upstream", f"127.0.0.1:{media_port}",
         "--direction", "down", "--per-client", "--after", str(args.impair_after), "--seed", str(seed),
         *SCENARIOS[scenario]], stdout=log, stderr=log)
    time.sleep(0.3)
    helper.reset()
    profile = tempfile.mkdtemp(prefix="pv-chromium-")
    seconds = args.seconds
    page = f"{helper.url}receiver.html?seconds={seconds}"
    chromium = None
    if not args.ours_only:
        chromium = subprocess.Popen(
            [args.chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
             f"--use-file-for-fake-audio-capture={microphone}%noloop", page],
            stdout=log, stderr=open(os.path.join(out, "chromium.log"), "w"))
    calls = {name: ours(path, helper.url, seconds, os.path.join(out, f"{name}.wav"), log)
             for name, path in [("ours", args.polyvoice), *args.variants]}
    stdouts = {}
    try:
        for name, call in calls.items():
            stdouts[name], _ = call.communicate(timeout=seconds + 30)
        if chromium and not helper.result_ready.wait(timeout=seconds + 40):
            raise RuntimeError("Chromium sent no result; its page log: " + " | ".join(helper.page_log))
    finally:
        for process in (chromium, relay) if chromium else (relay,):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(profile, ignore_errors=True)
        with open(os.path.join(out, "page.log"), "w") as handle:
            handle.write("\n".join(helper.page_log) + "\n")
        for name, stdout in stdouts.items():
            with open(os.path.join(out, f"{name}.ndjson"), "w") as handle:
                handle.write(stdout)
    outcome = {name: {**score(speech, os.path.join(out, f"{name}.wav"), args.same_stream_s),
                      **ours_stats(stdouts[name])}
               for name in calls}
    if not chromium:
        return outcome
    result = helper.result
    if not result.get("ok"):
        raise RuntimeError(f"Chromium failed: {result.get('error')}; page log: {' | '.join(helper.page_log)}")
    chromium_wav = os.path.join(out, "chromium.wav")
    pcm = np.frombuffer(base64.b64decode(result["pcm"]), dtype="<i2")
    wavfile.write(chromium_wav, result["sampleRate"], pcm)
    with open(os.path.join(out, "chromium-inbound.json"), "w") as handle:
        json.dump(result["inbound"], handle, indent=1)
    with open(os.path.join(out, "chromium-timeline.json"), "w") as handle:
        json.dump(result.get("timeline", []), handle)
    outcome["chromium"] = {**score(speech, chromium_wav, args.same_stream_s),
                           **chromium_stats(result["inbound"] or {})}
    return outcome


def median(runs, side, key):
    return statistics.median(run[side][key] for run in runs)


def report(results, fec, coding, variants, adaptive):
    """The Markdown table (medians over seeds) and the RESULT_JSON figures."""
    if not fec:
        sender = "without FEC (useinbandfec=0)"
    elif adaptive:
        sender = "with in-band FEC as each receiver's reports ask"
    else:
        sender = "with in-band FEC for the scenario's mean loss (the same coding for every receiver)"
    sender += f" ({' '.join(coding)})" if coding else ""
    print(f"\nReceiverCompare, sender: the bridge's play agent {sender}; medians over relay seeds "
          "(PESQ-WB per seed in brackets).\n")
    print("| network | receiver | PESQ-WB | from the first pause | STOI | concealed % | concealment events"
          " | jitter buffer delay ms |")
    print("|---|---|---|---|---|---|---|---|")
    figures = {}
    sides = [("chromium", "libwebrtc (Chromium)"), ("ours", "PolyVoice")] + [(name, name) for name, _ in variants]
    for scenario, runs in results.items():
        figures[scenario] = {}
        for side, name in sides:
            if side not in runs[0]:
                continue
            row = {key: round(median(runs, side, key), 3)
                   for key in ("pesq_wb", "pesq_wb_same_stream", "stoi", "concealed_pct", "concealment_events",
                               "delay_ms")}
            row["pesq_wb_runs"] = [round(run[side]["pesq_wb"], 2) for run in runs]
            figures[scenario][side] = row
            print(f"| {scenario} | {name} | {row['pesq_wb']:.2f} ({', '.join(f'{v:.2f}' for v in row['pesq_wb_runs'])})"
                  f" | {row['pesq_wb_same_stream']:.2f} | {row['stoi']:.3f} | {row['concealed_pct']:.1f}"
                  f" | {row['concealment_events']:.0f} | {row['delay_ms']:.0f} |")
        if "chromium" in figures[scenario]:
            for key, name in (("pesq_wb", "ours_at_least_libwebrtc"),
                              ("pesq_wb_same_stream", "ours_at_least_libwebrtc_same_stream")):
                figures[scenario][name] = figures[scenario]["ours"][key] >= figures[scenario]["chromium"][key]
        for key, name in (("pesq_wb", "paired"), ("pesq_wb_same_stream", "paired_same_stream")):
            comparisons = [paired(runs, "ours", "chromium", key)] + [
                paired(runs, side, "ours", key) for side, _ in variants]
            figures[scenario][name] = [c for c in comparisons if c]
        count = min(len(side_figures["pesq_wb_utterances"]) for run in runs for side_figures in run.values())
        figures[scenario]["paired_utterances"] = [
            {"side": side, "base": base,
             "utterances": [paired(runs, side, base, "pesq_wb_utterances", i) for i in range(count)]}
            for side, base in [("ours", "chromium")] + [(side, "ours") for side, _ in variants]
            if side in runs[0] and base in runs[0]]
    for name, what in (("paired", "the whole speech"),
                       ("paired_same_stream", "from the first pause on")):
        differences = [(scenario, c) for scenario, row in figures.items() for c in row[name]]
        if not differences:
            continue
        print(f"\nPaired by seed (both in the same run), PESQ-WB difference, {what}:\n")
        print("| network | receiver − base | mean | standard error | ahead / behind |")
        print("|---|---|---|---|---|")
        for scenario, c in differences:
            print(f"| {scenario} | {c['side']} − {c['base']} | {c['mean']:+.2f} | {c['standard_error']:.2f}"
                  f" | {c['ahead']} / {c['behind']} of {c['n']} |")
    rows = [(scenario, c) for scenario, row in figures.items() for c in row["paired_utterances"]]
    if rows:
        count = max(len(c["utterances"]) for _, c in rows)
        print("\nPaired by seed, PESQ-WB difference per utterance (each scored and aligned on its own; mean, "
              "standard error in brackets):\n")
        print("| network | receiver − base | " + " | ".join(f"utterance {i + 1}" for i in range(count)) + " |")
        print("|---|---|" + "---|" * count)
        for scenario, c in rows:
            cells = [f"{u['mean']:+.2f} ({u['standard_error']:.2f})" if u else "—" for u in c["utterances"]]
            print(f"| {scenario} | {c['side']} − {c['base']} | " + " | ".join(cells) + " |")
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polyvoice", default=os.path.join(ROOT, ".build", "release", "polyvoice"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--seconds", type=float, default=0, help="call length (default: the speech + 1.5 s)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="say the speech N times (a long call: the buffers' holds lapse inside it, not at its end)")
    parser.add_argument("--no-fec", action="store_true", help="receivers ask for no in-band FEC (useinbandfec=0)")
    parser.add_argument("--ours-only", action="store_true", help="leave Chromium out (our receiver's variants)")
    parser.add_argument("--sender-bitrate", type=int, help="the play agent's bitrate (default the bridge's, 48000)")
    parser.add_argument("--sender-bandwidth", help="the play agent's widest band (default the bridge's, wideband)")
    parser.add_argument("--adaptive-sender", action="store_true",
                        help="code each call as its receiver's loss reports ask, not for the scenario's loss")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=PATH",
                        help="another build of our client as a further receiver (repeatable)")
    parser.add_argument("--impair-after", type=float, default=IMPAIR_AFTER_S, metavar="S",
                        help=f"seconds of a call's traffic the relay passes unimpaired (default {IMPAIR_AFTER_S}: "
                        "the set-up and the lead silence; later starts the impairment inside the speech)")
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "receiver-compare"))
    args = parser.parse_args()
    if args.impair_after < 0:
        parser.error("--impair-after wants seconds, 0 or more")
    if args.repeat < 1:
        parser.error("--repeat wants 1 or more")
    unknown = [name for name in args.scenarios.split(",") if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}: choose from {', '.join(SCENARIOS)}")
    args.variants = []
    for text in args.variant:
        name, _, path = text.partition("=")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name) or name in ("ours", "chromium") or not path:
            parser.error(f"--variant wants NAME=PATH with a new name of letters, digits, - or _: {text!r}")
        if not os.access(path, os.X_OK):
            parser.error(f"--variant {name}: {path} is not an executable")
        args.variants.append((name, os.path.abspath(path)))
    coding = ((["--agent-bitrate", str(args.sender_bitrate)] if args.sender_bitrate else [])
              + (["--agent-bandwidth", args.sender_bandwidth] if args.sender_bandwidth else []))
    args.out = os.path.join(args.out, "no-fec" if args.no_fec else "fec")
    os.makedirs(args.out, exist_ok=True)
    speech, microphone = make_speech(args.out, args.repeat)
    rate, samples = wavfile.read(speech)
    if not args.seconds:
        args.seconds = round(len(samples) / rate + 1.5, 1)
    args.same_stream_s = same_stream_from(samples, rate)

    media_port, relay_port = free_udp_port(), free_udp_port()
    bridge_log = open(os.path.join(args.out, "bridge.log"), "w")
    helper = Helper(None)
    helper.no_fec = args.no_fec
    threading.Thread(target=helper.serve_forever, daemon=True).start()
    results = {}
    bridge = None
    try:
        for scenario in args.scenarios.split(","):
            if bridge:
                bridge.terminate()
                bridge.wait(timeout=10)
            pinned = [] if args.adaptive_sender else ["--agent-loss-hint", str(sender_loss_hint(scenario))]
            bridge, helper.bridge_url = start_bridge(
                args.polyvoice, speech, media_port, relay_port, bridge_log, coding + pinned)
            results[scenario] = []
            for seed in [int(s) for s in args.seeds.split(",")]:
                out = os.path.join(args.out, f"{scenario}-seed{seed}")
                outcome = one_run(args, helper, speech, microphone, relay_port, media_port, scenario, seed, out)
                results[scenario].append(outcome)
                print(f"{scenario} seed {seed}: " + "; ".join(
                    f"{side} PESQ-WB {r['pesq_wb']:.2f} STOI {r['stoi']:.3f} concealed {r['concealed_pct']:.1f} % "
                    f"delay {r['delay_ms']:.0f} ms" for side, r in outcome.items()), flush=True)
    finally:
        helper.shutdown()
        if bridge:
            bridge.terminate()
            bridge.wait(timeout=10)
    figures = report(results, fec=not args.no_fec, coding=coding, variants=args.variants,
                     adaptive=args.adaptive_sender)
    with open(os.path.join(args.out, "results.json"), "w") as handle:
        json.dump({"runs": results, "medians": figures}, handle, indent=1)
    summary = {
        "fec": not args.no_fec, "seeds": args.seeds, "impair_after_s": args.impair_after,
        "sender_bitrate": args.sender_bitrate,
        "sender_bandwidth": args.sender_bandwidth,
        "sender_loss_hint": "adaptive" if args.adaptive_sender else {name: sender_loss_hint(name) for name in figures},
        "pesq_wb_median": {name: {side: row[side]["pesq_wb"] for side in ("ours", "chromium") if side in row}
                           for name, row in figures.items()},
        "paired": {name: row["paired"] for name, row in figures.items()},
        "same_stream_from_s": round(args.same_stream_s, 2),
        "paired_same_stream": {name: row["paired_same_stream"] for name, row in figures.items()},
        "paired_utterances": {name: row["paired_utterances"] for name, row in figures.items()},
    }
    if not args.ours_only:
        for key in ("ours_at_least_libwebrtc", "ours_at_least_libwebrtc_same_stream"):
            summary[key] = {name: row[key] for name, row in figures.items()}
    print("RESULT_JSON " + json.dumps(summary))


if __name__ == "__main__":
    main()
