#!/usr/bin/env bash
# One-time machine setup for attentive on Debian: system packages and the
# offline speech model. Idempotent; safe to run before every build.
#   - speech (ci-speech-setup.sh): cmake, ALSA headers, espeak-ng, sox, PulseAudio, the whisper model
#   - the live page's browser tests: chromium and its WebDriver (chromedriver)
#   - the unit checks: systemd-analyze (package systemd)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ci-speech-setup.sh
pkgs=(chromium chromium-driver systemd)
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
