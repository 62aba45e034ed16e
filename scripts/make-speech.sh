#!/usr/bin/env bash
# Writes reproducible speech: 16-bit mono PCM WAV at 48 kHz (espeak-ng, converted by sox without dither).
# Usage: scripts/make-speech.sh OUT.wav [VOICE (en-us | en-us+f3)] [TEXT]
# The same voices and default text as PolyVoiceTesting's SpeechFixtures.
set -euo pipefail
out=${1:?usage: make-speech.sh OUT.wav [VOICE] [TEXT]}
voice=${2:-en-us}
text=${3:-"The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish."}
raw=$(mktemp --suffix=.wav)
trap 'rm -f "$raw"' EXIT
espeak-ng -v "$voice" -w "$raw" "$text"
sox -D "$raw" -r 48000 -c 1 -b 16 -e signed-integer "$out"
