#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine with the Swift toolchain:
# the Debian libraries the build links, the tools tests and benchmarks use,
# and a project-local Python venv with pinned quality/interop packages.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  pkg-config
  libopus-dev portaudio19-dev libsrtp2-dev libssl-dev libwebsockets-dev
  libspeexdsp-dev libsndfile1-dev libasound2-dev libre-dev
  libwebrtc-audio-processing-dev
  libyaml-dev libespeak-ng-dev zlib1g-dev
  pulseaudio pulseaudio-utils libasound2-plugins alsa-utils
  espeak-ng flite sox python3-venv iproute2 tmux nftables openssl ca-certificates
  coturn
  # Benchmarks/ReceiverCompare: libwebrtc (headless Chromium) as a second receiver beside ours.
  chromium
  # make package (scripts/package.sh, package-test.sh): a static Swift runtime links FoundationNetworking,
  # which needs libcurl's -lcurl; zsh checks the generated completion.
  dpkg-dev binutils debootstrap lintian man-db zsh libcurl4-openssl-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python tools (PESQ/STOI scoring, aiortc interop peer), pinned, project-local.
VENV=.venv
REQ=scripts/requirements.txt
STAMP="$VENV/.requirements.sha"
want=$(sha256sum "$REQ" | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
  echo "setup: preparing Python venv in $VENV"
  PY=python3
  [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
  "$PY" -m venv "$VENV" 2>/dev/null || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip >/dev/null
  "$VENV/bin/pip" install -q -r "$REQ"
  echo "$want" > "$STAMP"
fi
