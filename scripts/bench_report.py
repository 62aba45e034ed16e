#!/usr/bin/env python3
"""Collects one `make bench` run into Benchmarks/results: latest.json, latest.md and PNG plots.

Usage: bench_report.py [--logs out/bench] [--out Benchmarks/results] [--note TEXT]

Each benchmark's log (LOGS/<name>.log) ends with `RESULT_JSON {...}`: its figures. A log without that line
gives a "missing" entry with the reason; no figure is ever made up. LOGS/machine.txt holds the start/end time
and load average that scripts/bench.sh recorded, and LOGS/commands.txt each benchmark's command; the CPU model,
core count and kernel are read here.
The jitter table also reads out/jitter-eval/results.json (JitterEval's per-trace scores) when present.
"""

import argparse
import json
import os
import platform
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BENCHES = [
    ("CodecBench", "Opus through PolyAudio vs libopus called from C (speed ratio Swift/C)"),
    ("MediaBench", "RTP parse/serialize and SRTP protect/unprotect, Swift vs C"),
    ("DTLSBench", "DTLS-SRTP handshake CPU vs generating one certificate"),
    ("AudioProcessingBench", "AEC/NS/AGC per 20 ms frame, Swift wrapper vs the C API"),
    ("ConnectBench", "start ICE → SRTP keys ready, our bridge peer vs aiortc"),
    ("RelaySetupBench", "call setup direct vs relay-only through coturn over TURN/UDP, TCP and TLS"),
    ("RelayPacketBench", "client CPU per packet direct vs through a TURN/UDP channel (coturn), and the ChannelData framing alone"),
    ("JitterBench", "jitter buffer playout CPU per 20 ms frame vs an Opus decode of the same packets"),
    ("CallBench", "call setup, mouth-to-ear through echo, PESQ-WB of echoed speech: our PolyCall vs aiortc"),
    ("JitterEval", "jitter buffer on 13 seeded trace families (seeds 101–116, no tuning ran on them; see Benchmarks/JitterEval/README.md) vs fixed 40/60/120 ms, an oracle, baresip jbuf and aiortc"),
    ("JitterEvalWarm", "the same traces' families a call some way in: each trace four utterances long, only the "
     "last scored (`bash Benchmarks/JitterEval/run.sh --warm-up 3 --out out/jitter-eval-warm`; delay and "
     "concealment over the whole trace)"),
    ("BridgeLoad", "concurrent echo calls on the reference bridge, CPU per call"),
    ("ConversationLoad", "concurrent scripted calls of one polyvoice test process, latency vs the agent's"),
    ("ConcealLoad", "concurrent echo calls with busy processes: concealment with zero loss, round trip, PESQ-WB"),
    ("MediaFlood", "20 echo calls on the shared media port under a 20,000 datagram/s flood for 10 s: packets lost, drops counted by category vs sent"),
    ("Reaping", "callers that vanish (SIGSTOP) reaped at --media-timeout by a real bridge, in batches: fds and live calls back to baseline"),
    ("Soak", "100 churning echo calls (30–120 s each, seeded) on the reference bridge for 10 minutes: RSS slopes after "
     "warm-up, descriptors, threads, CPU, frame-clock lag of the bridge and the load generator, packets lost by cause, "
     "the bridge's RSS per added call (`.build/release/BridgeLoad --soak 600`)"),
    ("ClientCall", "one 10-minute `polyvoice call` (file audio looped, echo agent): RSS slope, jitter-buffer delay and "
     "drift between its audio clock and RTP time over time, PESQ-WB of the echoed speech early and late "
     "(`.build/release/BridgeLoad --client-call 600`)"),
    ("SenderEval", "PESQ-WB of what the far end decodes against Opus bitrate, bandwidth and complexity, clean and "
     "at 2/5/10 % loss with FEC (our OpusEncoder; docs/SENDER.md)"),
    ("SenderEcho", "the bridge echo's extra Opus generation: PESQ-WB and encoder µs per frame by mode"),
    ("EchoAiortc", "the reference bridge's echo as an aiortc caller hears it, clean path, PESQ-WB"),
    ("ReceiverCompare", "what our receiver and libwebrtc's (headless Chromium) play of one play agent through one "
     "impairment relay, in the same run: PESQ-WB, STOI, concealment, jitter buffer delay; sender with FEC coded for "
     "the scenario's mean loss, the same stream for both receivers"),
    ("ReceiverCompareLong", "the same on jitter in a 40 s call (the speech said three times): what the receivers do "
     "once the holds learned at the onset lapse"),
    ("ReceiverCompareNoFEC", "the same with the sender coding without in-band FEC (receivers ask useinbandfec=0): "
     "PLC only"),
    ("ReceiverCompareNoFEC96k", "the same without FEC from a 96 kbit/s fullband play agent (the issue's no-FEC "
     "sender, as aiortc's), 5 % loss and bursts"),
    ("PLCCeiling", "libopus PLC alone on the play agent's stream without FEC, perfectly timed (5 % uniform and "
     "Gilbert-Elliott loss, six seeds): the ceiling of a real-time receiver of it"),
    ("PLCCeiling96k", "the same ceiling for the 96 kbit/s fullband stream of ReceiverCompareNoFEC96k"),
    ("PLCCeiling96kTwoSided", "that stream perfectly timed with lone losses concealed as our jitter buffer does when "
     "the next packet is there (PLC cross-faded into the next packet's audio extended backwards; GapInterpolation)"),
    ("FECCeiling", "libopus FEC and PLC on the play agent's stream with FEC (64 kbit/s, loss hint 5 %), perfectly "
     "timed, each lone loss decoded from its successor (six seeds): the ceiling of the ReceiverCompare FEC runs"),
]
# Benchmarks whose log holds a Markdown table (lines starting with "|") to copy into the report.
TABLES = {"SenderEval", "SenderEcho", "EchoAiortc", "ReceiverCompare", "ReceiverCompareLong", "ReceiverCompareNoFEC",
          "ReceiverCompareNoFEC96k"}


def log_table(logs, name):
    """The Markdown table lines of a benchmark's log (and the line before them, its caption)."""
    path = os.path.join(logs, f"{name}.log")
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        lines = [line.rstrip("\n") for line in handle if not line.startswith("RESULT_JSON")]
    first = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if first is None:
        return []
    caption = [lines[first - 1], ""] if first > 0 else []
    return caption + [line for line in lines[first:] if line.startswith("|")]


def read_machine(logs):
    info = {}
    path = os.path.join(logs, "machine.txt")
    if os.path.exists(path):
        for line in open(path):
            key, _, value = line.strip().partition(" ")
            info[key] = value
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # Judged at the start: the load at the end is mostly the last benchmarks' own (Chromium, calls, PESQ).
    start = info.get("start_loadavg", "")
    shared = bool(start) and float(start.split()[0]) > 0.5 * cores
    return {
        "cpu_model": cpu,
        "nproc": cores,
        "kernel": platform.release(),
        "start_utc": info.get("start_utc"),
        "end_utc": info.get("end_utc"),
        "loadavg_start": info.get("start_loadavg"),
        "loadavg_end": info.get("end_loadavg"),
        "git": info.get("git"),
        "shared_or_loaded": shared,
    }


def read_runs(logs):
    runs = {}
    path = os.path.join(logs, "runs.txt")
    if os.path.exists(path):
        for line in open(path):
            name, *fields = line.split()
            runs[name] = dict(field.split("=", 1) for field in fields)
    return runs


def read_commands(logs):
    """The command each benchmark ran, as scripts/bench.sh recorded it (name, a tab, the command)."""
    path = os.path.join(logs, "commands.txt")
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return dict(line.rstrip("\n").split("\t", 1) for line in handle if "\t" in line)


def read_result(logs, name, run):
    """The benchmark's last RESULT_JSON object, or a 'missing' entry saying why."""
    path = os.path.join(logs, f"{name}.log")
    if not os.path.exists(path):
        return {"bench": name, "missing": "not run (no log)"}
    found = None
    for line in open(path, errors="replace"):
        if line.startswith("RESULT_JSON "):
            found = line[len("RESULT_JSON ") :]
    if found is None:
        status = run.get("status", "?")
        return {"bench": name, "missing": f"no RESULT_JSON line in {path} (exit status {status})"}
    try:
        result = json.loads(found)
    except json.JSONDecodeError as error:
        return {"bench": name, "missing": f"malformed RESULT_JSON: {error}"}
    if run:
        result.setdefault("run_seconds", float(run.get("seconds", "nan")))
    return result


def describe_list(values):
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(values):
        # Linear interpolation between closest ranks, as the benchmarks compute their own p90s.
        q = statistics.quantiles(numbers, n=10, method="inclusive") if len(numbers) > 1 else [numbers[0]] * 9
        return f"n={len(numbers)}, median {statistics.median(numbers):.4g}, p90 {q[8]:.4g}, min {min(numbers):.4g}, max {max(numbers):.4g}"
    return f"{len(values)} entries (see latest.json)"


def cell(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "—"
    if isinstance(value, list):
        return describe_list(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {cell(v)}" for k, v in value.items())
    return str(value).replace("|", "\\|")


# Time series drawn as a plot instead of a table.
SERIES_KEYS = {"samples", "echo"}


def figures_table(result):
    rows = ["| figure | value |", "|---|---|"]
    result = {key: value for key, value in result.items() if key not in SERIES_KEYS}
    for key, value in result.items():
        if key == "bench":
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            continue  # rendered as its own table
        rows.append(f"| {key} | {cell(value)} |")
    for key, value in result.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            columns = list(dict.fromkeys(k for row in value for k in row))
            rows += ["", f"**{key}**", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
            rows += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in value]
    return rows


def callbench_table(result):
    def pair(key):
        return cell(result.get(f"own_{key}")), cell(result.get(f"aiortc_{key}"))

    rows = [
        "| figure (same run, same bridge) | our PolyCall | aiortc caller |",
        "|---|---|---|",
    ]
    for label, key in [
        ("call setup median, ms", "setup_median_ms"),
        ("call setup p90, ms", "setup_p90_ms"),
        ("mouth-to-ear through echo median, ms", "m2e_median_ms"),
        ("mouth-to-ear through echo p90, ms", "m2e_p90_ms"),
        ("chirps not found", "m2e_missed"),
        ("PESQ-WB echoed speech, clean", "clean_pesq_wb"),
        ("PESQ-WB echoed speech, 5% loss each way", "loss5_pesq_wb"),
        ("speech delay (cross-correlation), clean, ms", "clean_speech_delay_ms"),
        ("speech delay (cross-correlation), 5% loss, ms", "loss5_speech_delay_ms"),
    ]:
        ours, theirs = pair(key)
        rows.append(f"| {label} | {ours} | {theirs} |")
    rows.append(
        f"| ratio aiortc / ours (setup, mouth-to-ear medians) | {cell(result.get('setup_ratio_aiortc_over_own'))}, "
        f"{cell(result.get('m2e_ratio_aiortc_over_own'))} | |"
    )
    rows += [
        "",
        "Setup: ours is `PolyCall.start()` → DTLS connected (`setupTime`: provision, offer/answer, ICE, DTLS); "
        "aiortc's is provision → `connectionState` connected. Mouth-to-ear: a 40 ms chirp from entering the "
        "sender (the 20 ms frame holding it handed to the stack) to being played (ours: written out by the call's "
        "audio clock, placed exactly on the input's timeline; aiortc: its decoded frame delivered, by arrival time), "
        "found by a matched filter; both sides count the same way, and neither includes the 20 ms a microphone takes "
        "to fill a frame or any device buffer. PESQ-WB: echoed espeak speech against the original, aligned by "
        "scripts/quality.py (median over the speech calls). Ours is what the call's 20 ms audio clock played; "
        "aiortc has no playout clock, so its audio is placed by RTP timestamp (what its recorder would write: "
        "late frames cost it nothing, lost ones leave silence). Loss: uniform, each way, through an "
        "ImpairmentRelay in front of the bridge's shared media port (every ICE, DTLS, SRTP and RTCP datagram "
        "crosses it).",
    ]
    return rows


def jitter_scores(root, folder="jitter-eval"):
    path = os.path.join(root, "out", folder, "results.json")
    if not os.path.exists(path):
        return None
    raw = json.load(open(path))
    table, seeds = {}, set()
    for key, value in raw.items():
        profile, buffer, seed = key.split("/")
        table.setdefault((profile, buffer), []).append(value)
        seeds.add(seed)
    scores = {k: {m: statistics.mean(r[m] for r in v) for m in ("pesq", "delay", "stoi")} for k, v in table.items()}
    return scores, sorted(seeds)


def jitter_table(scores, seeds, folder="jitter-eval"):
    profiles = list(dict.fromkeys(p for p, _ in scores))
    buffers = list(dict.fromkeys(b for _, b in scores))
    rows = [
        f"Mean over trace seeds {', '.join(seeds)}: PESQ-WB / mean buffer delay (ms), from "
        f"out/{folder}/results.json (every buffer on the same traces; evaluate.py caches the baselines):",
        "",
        "| profile | " + " | ".join(buffers) + " |",
        "|---|" + "---|" * len(buffers),
    ]
    for profile in profiles:
        values = [scores.get((profile, b)) for b in buffers]
        rows.append(
            f"| {profile} | "
            + " | ".join(f"{v['pesq']:.2f} / {v['delay']:.0f}" if v else "—" for v in values)
            + " |"
        )
    return rows


def bridge_steps(result, logs):
    """(calls, server CPU ms per call-second) per step: from RESULT_JSON if it has per-step rows, else the log's table."""
    for value in result.values():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            keys = list(value[0])
            x = next((k for k in keys if k.lower() in ("calls", "n")), None)
            y = next((k for k in keys if "cpu" in k.lower() and "call" in k.lower()), None)
            if x and y:
                return [(row[x], row[y]) for row in value if row.get(x) is not None and row.get(y) is not None]
    path = os.path.join(logs, "BridgeLoad.log")
    if not os.path.exists(path):
        return []
    header, steps = None, []
    for line in open(path, errors="replace"):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None and "N" in cells:
            header = cells
            continue
        if header and len(cells) == len(header) and not cells[0].startswith("-"):
            try:
                steps.append((int(cells[header.index("N")]), float(cells[header.index("srv CPU ms/call-s")])))
            except (ValueError, IndexError):
                pass
    return steps


def save_figure(fig, out, name, dpi):
    """Lays out, writes out/name and closes the figure; returns its path."""
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def plot_callbench(result, out):
    series = [
        ("setup, ours", result.get("own_setup_ms")),
        ("setup, aiortc", result.get("aiortc_setup_ms")),
        ("mouth-to-ear, ours", result.get("own_m2e_ms")),
        ("mouth-to-ear, aiortc", result.get("aiortc_m2e_ms")),
    ]
    series = [(label, values) for label, values in series if values]
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.boxplot([v for _, v in series], vert=True, whis=(10, 90), showfliers=True)
    ax.set_xticks(range(1, len(series) + 1), [label for label, _ in series], rotation=10)
    for i, (_, values) in enumerate(series, start=1):
        ax.scatter([i + (j % 7 - 3) * 0.03 for j in range(len(values))], values, s=8, alpha=0.5)
    ax.axhline(100, color="gray", linestyle=":", linewidth=1)
    ax.axhline(90, color="gray", linestyle="--", linewidth=1)
    ax.set_ylabel("ms (box: median, quartiles; whiskers p10–p90)")
    ax.set_title("CallBench on 127.0.0.1: targets setup ≤ 100 ms (:), round trip ≤ 90 ms (--)")
    return save_figure(fig, out, "callbench_distributions.png", dpi=110)


def plot_jitter(scores, out):
    profiles = list(dict.fromkeys(p for p, _ in scores))
    buffers = list(dict.fromkeys(b for _, b in scores))
    columns = 4
    rows = (len(profiles) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(14, 3.4 * rows), squeeze=False)
    styles = {"ours": dict(marker="*", s=140, color="tab:red"), "oracle": dict(marker="D", s=50, color="black")}
    for index, profile in enumerate(profiles):
        ax = axes[index // columns][index % columns]
        for buffer in buffers:
            value = scores.get((profile, buffer))
            if value:
                ax.scatter(value["delay"], value["pesq"], label=buffer, **styles.get(buffer, dict(s=40)))
                ax.annotate(buffer, (value["delay"], value["pesq"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_title(profile)
        ax.set_xlabel("mean buffer delay, ms")
        ax.set_ylabel("PESQ-WB")
        ax.grid(alpha=0.3)
    for index in range(len(profiles), rows * columns):
        axes[index // columns][index % columns].axis("off")
    fig.suptitle("Jitter buffers: delay vs quality per network profile (up and left is better)")
    return save_figure(fig, out, "jitter_delay_vs_quality.png", dpi=110)


def plot_bridge(steps, out):
    if not steps:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot([s[0] for s in steps], [s[1] for s in steps], marker="o")
    ax.set_xlabel("concurrent echo calls")
    ax.set_ylabel("bridge CPU, ms per call-second")
    ax.set_title("Reference bridge CPU per call vs calls")
    ax.grid(alpha=0.3)
    return save_figure(fig, out, "bridge_cpu_vs_calls.png", dpi=110)


def plot_soak(result, out, name):
    """The soak's samples over time: both processes' RSS, descriptors, threads, CPU, lag; loss per interval."""
    samples = result.get("samples") or []
    if not samples:
        return None
    minutes = [s["t"] / 60 for s in samples]
    panels = [
        ("RSS, MB", "rss_mb"),
        ("open descriptors", "descriptors"),
        ("threads", "threads"),
        ("CPU, % of one core", "cpu_percent"),
        ("frame-clock lag (mean), ms", "lag_mean_ms"),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(14, 7))
    for ax, (label, key) in zip(axes.flat, panels):
        for process, style in (("bridge", "tab:blue"), ("generator", "tab:orange")):
            ax.plot(minutes, [s[process][key] for s in samples], label=process, color=style)
        ax.set_title(label)
        ax.set_xlabel("minutes")
        ax.grid(alpha=0.3)
        warmup = result.get("warmup_s")
        if warmup:
            ax.axvline(warmup / 60, color="gray", linestyle=":", linewidth=1)
    axes.flat[0].legend()
    ax = axes.flat[5]
    for key, label in (("bridge_caused_loss", "bridge CPU"), ("generator_caused_loss", "generator CPU"), ("other_loss", "other")):
        values = [s.get(key) for s in samples if key in s]
        if values:
            ax.plot(minutes[: len(values)], values, label=label)
    ax.set_title("packets lost per interval, by cause")
    ax.set_xlabel("minutes")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.suptitle(f"{name}: time series (dotted: end of warm-up)")
    return save_figure(fig, out, f"{name.lower()}_timeseries.png", dpi=100)


def plot_client_call(result, out):
    """The long call over time: RSS, jitter-buffer delay, drift, and the echo's PESQ-WB per period."""
    samples = result.get("samples") or []
    if not samples:
        return None
    minutes = [s["t"] / 60 for s in samples]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    series = [
        (axes[0][0], "call RSS, MB", [s["rss_mb"] for s in samples]),
        (axes[0][1], "jitter-buffer delay (interval mean), ms", [s.get("jitter_delay_ms") for s in samples]),
        (axes[1][0], "drift: RTP time − audio clock, ms", [s.get("drift_ms") for s in samples]),
    ]
    for ax, title, values in series:
        points = [(m, v) for m, v in zip(minutes, values) if v is not None]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=".")
        ax.set_title(title)
        ax.set_xlabel("minutes")
        ax.grid(alpha=0.3)
    ax = axes[1][1]
    echo = result.get("echo") or []
    ax.plot([e["start_s"] / 60 for e in echo], [e["pesq_wb"] for e in echo], marker="o")
    ax.set_title("echoed speech, PESQ-WB per period")
    ax.set_xlabel("minutes")
    ax.grid(alpha=0.3)
    fig.suptitle("ClientCall: one long polyvoice call through the echo agent")
    return save_figure(fig, out, "clientcall_timeseries.png", dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", default=os.path.join(ROOT, "out", "bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "results"))
    parser.add_argument("--note", default="", help="a remark about the run (e.g. what else loaded the machine)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    machine = read_machine(args.logs)
    if args.note:
        machine["note"] = args.note
    runs = read_runs(args.logs)
    commands = read_commands(args.logs)
    results = {name: read_result(args.logs, name, runs.get(name, {})) for name, _ in BENCHES}
    jitter, seeds = jitter_scores(ROOT) or (None, [])
    warm, warm_seeds = jitter_scores(ROOT, "jitter-eval-warm") or (None, [])
    steps = bridge_steps(results["BridgeLoad"], args.logs)

    plots = {}
    if "missing" not in results["CallBench"]:
        plots["CallBench"] = plot_callbench(results["CallBench"], args.out)
    if jitter:
        plots["JitterEval"] = plot_jitter(jitter, args.out)
    plots["BridgeLoad"] = plot_bridge(steps, args.out)
    if "missing" not in results["Soak"]:
        plots["Soak"] = plot_soak(results["Soak"], args.out, "Soak")
    if "missing" not in results["ClientCall"]:
        plots["ClientCall"] = plot_client_call(results["ClientCall"], args.out)

    with open(os.path.join(args.out, "latest.json"), "w") as handle:
        json.dump({"machine": machine, "benchmarks": results}, handle, indent=1, sort_keys=True)
        handle.write("\n")

    load = f"load average {machine['loadavg_start']} at start, {machine['loadavg_end']} at end"
    lines = [
        "# PolyVoice benchmark report (`make bench`)",
        "",
        f"Machine: **{machine['cpu_model']}**, {machine['nproc']} CPUs, Linux {machine['kernel']}; "
        f"run {machine['start_utc']} → {machine['end_utc']} UTC at commit {machine['git']}.",
        "",
        (
            f"**Shared, loaded machine** ({load}): absolute times below include waiting for CPU."
            if machine["shared_or_loaded"]
            else f"The machine looked quiet ({load})."
        ),
    ]
    if args.note:
        lines += ["", f"Note: {args.note}"]
    lines += [
        "",
        "Each figure is either a ratio against a baseline measured in the same run (the table says which) or an "
        "absolute figure from the machine above. A benchmark that printed no `RESULT_JSON` line is shown as missing. "
        "Raw figures: `latest.json`; full outputs: `out/bench/*.log` of the run.",
    ]
    for name, what in BENCHES:
        result = results[name]
        lines += ["", f"## {name}", "", what + "."]
        if "run_seconds" in result:
            lines[-1] += f" Ran {result['run_seconds']:.0f} s."
        if name in commands:
            lines[-1] += f" Command: `{commands[name]}`."
        lines.append("")
        if "missing" in result:
            lines.append(f"**Missing**: {result['missing']}")
        else:
            if name == "CallBench":
                lines += callbench_table(result) + ["", "All figures:", ""]
            lines += figures_table(result)
        if name == "JitterEval" and jitter:
            lines += [""] + jitter_table(jitter, seeds)
        if name == "JitterEvalWarm" and warm:
            lines += [""] + jitter_table(warm, warm_seeds, "jitter-eval-warm")
        if name in TABLES:
            lines += [""] + log_table(args.logs, name)
        if name == "BridgeLoad" and steps and "missing" in result:
            lines += ["", "From the table in BridgeLoad's log:", "", "| calls | bridge CPU ms per call-second |", "|---|---|"]
            lines += [f"| {calls} | {cpu} |" for calls, cpu in steps]
        plot = plots.get(name)
        if plot:
            lines += ["", f"![{name}]({os.path.basename(plot)})"]
    with open(os.path.join(args.out, "latest.md"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    missing = [name for name, result in results.items() if "missing" in result]
    print(f"bench_report: wrote {args.out}/latest.json, latest.md and {sum(1 for p in plots.values() if p)} plots")
    if missing:
        print(f"bench_report: missing RESULT_JSON from {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
