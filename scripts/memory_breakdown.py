#!/usr/bin/env python3
"""Where a running process's resident memory is: /proc/PID/smaps summed by what each mapping belongs to.

Usage: memory_breakdown.py PID [--json] [--libraries]

Groups: the Swift runtime and Foundation (and FoundationNetworking's libcurl with its dependencies, loaded
with it), OpenSSL, NSS (libsrtp2's crypto), libwebsockets, the audio libraries, PortAudio/ALSA, the C library,
the program itself, and anonymous memory (heap, thread stacks: the program's own data). For each group: RSS
(shared pages counted whole, as the kernel's VmRSS does), PSS (shared pages split between the processes
mapping them) and the anonymous part. --libraries also lists every mapped file. See docs/MEMORY.md.
"""
import argparse
import collections
import json
import os
import re
import sys

GROUPS = [
    ("Swift runtime", r"libswift|libBlocksRuntime|libdispatch"),
    ("Foundation", r"libFoundation(Essentials|Internationalization)?\.so|lib_FoundationICU"),
    ("FoundationNetworking + libcurl and its dependencies",
     r"libFoundationNetworking|libcurl|libgnutls|libnettle|libhogweed|libgmp|libp11-kit|libtasn1|libkrb5|"
     r"libk5crypto|libgssapi|libkeyutils|libcom_err|libldap|liblber|libsasl|libssh2|librtmp|libpsl|libidn2|"
     r"libunistring|libnghttp2|libbrotli|libzstd|libffi|libresolv"),
    ("OpenSSL", r"libssl\.so|libcrypto\.so"),
    ("NSS (libsrtp2's crypto)", r"libsrtp2|libnss3|libnssutil3|libsmime3|libssl3|libsoftokn3|libfreebl|libnspr4|"
     r"libplc4|libplds4|libsqlite3"),
    ("libwebsockets", r"libwebsockets|libcap\.so|libev\.so|libuv"),
    ("audio: Opus, speexdsp, webrtc-audio-processing, C++ runtime",
     r"libopus|libspeexdsp|libwebrtc_audio|libstdc\+\+|libgcc_s"),
    ("PortAudio, ALSA, JACK", r"libportaudio|libasound|libjack|libdb-|libpthread"),
    ("espeak-ng and its dependencies (PulseAudio, X11, sndfile, codecs)",
     r"libespeak|libpcaudio|libsonic|libpulse|libX11|libxcb|libXau|libXdmcp|libdbus|libsndfile|libFLAC|libvorbis|"
     r"libogg|libmpg123|libmp3lame|libasyncns|libsystemd|libgcrypt|libgpg-error|liblzma|liblz4|libbsd|libmd\.so"),
    ("C library, loader, zlib, libyaml", r"libc\.so|libm\.so|ld-linux|libz\.so|libyaml|libdl|librt"),
]


def read_smaps(pid):
    mappings = collections.defaultdict(lambda: {"rss": 0, "pss": 0, "anon": 0})
    current = None
    with open(f"/proc/{pid}/smaps") as handle:
        for line in handle:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                fields = line.split()
                current = fields[5] if len(fields) > 5 else "[anonymous]"
            elif line.startswith("Rss:"):
                mappings[current]["rss"] += int(line.split()[1])
            elif line.startswith("Pss:"):
                mappings[current]["pss"] += int(line.split()[1])
            elif line.startswith("Anonymous:"):
                mappings[current]["anon"] += int(line.split()[1])
    return mappings


def group_of(path, program):
    if not path.startswith("/"):
        return "anonymous (heap, thread stacks, our buffers)"
    if os.path.realpath(path) == program:
        return "the program (its code and data)"
    name = os.path.basename(path)
    for group, pattern in GROUPS:
        if re.search(pattern, name):
            return group
    return "other libraries"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pid", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--libraries", action="store_true", help="also list every mapped file")
    args = parser.parse_args()
    program = os.path.realpath(f"/proc/{args.pid}/exe")
    mappings = read_smaps(args.pid)
    groups = collections.defaultdict(lambda: {"rss": 0, "pss": 0, "anon": 0})
    for path, figures in mappings.items():
        for key in figures:
            groups[group_of(path, program)][key] += figures[key]
    total = {key: sum(g[key] for g in groups.values()) for key in ("rss", "pss", "anon")}
    if args.json:
        print(json.dumps({"total_kb": total, "groups_kb": groups}, sort_keys=True))
        return 0
    print(f"| group | RSS MB | PSS MB | anonymous MB |\n|---|---|---|---|")
    for name, figures in sorted(groups.items(), key=lambda item: -item[1]["rss"]):
        print(f"| {name} | {figures['rss'] / 1024:.1f} | {figures['pss'] / 1024:.1f} | {figures['anon'] / 1024:.1f} |")
    print(f"| **total** | **{total['rss'] / 1024:.1f}** | {total['pss'] / 1024:.1f} | {total['anon'] / 1024:.1f} |")
    if args.libraries:
        print()
        for path, figures in sorted(mappings.items(), key=lambda item: -item[1]["rss"]):
            if figures["rss"]:
                print(f"{figures['rss']:8d} kB  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
