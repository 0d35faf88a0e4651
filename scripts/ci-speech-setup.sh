#!/usr/bin/env bash
# Prepares a machine for the speech front end's build and tests (issue 6); idempotent.
#   - system packages: cmake (whisper.cpp), libasound2-dev + pkg-config (cpal/ALSA),
#     espeak-ng + sox (test speech), pulseaudio tools (virtual microphone for the live test)
#   - the whisper tiny.en model in models/ (built offline from PyPI, see build-whisper-model.sh)
# Usage: bash scripts/ci-speech-setup.sh     (as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(cmake pkg-config libasound2-dev espeak-ng sox pulseaudio pulseaudio-utils libasound2-plugins)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo_cmd=""
    [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
bash scripts/build-whisper-model.sh models/ggml-tiny.en.bin
