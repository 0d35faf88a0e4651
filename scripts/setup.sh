#!/usr/bin/env bash
# One-time machine setup for attentive on Debian: system packages and the
# offline speech model. Idempotent; safe to run before every build.
#   - speech (ci-speech-setup.sh): cmake, ALSA headers, espeak-ng, sox, PulseAudio, the whisper model
#   - the live page's browser tests: chromium and its WebDriver (chromedriver)
#   - the unit checks: systemd-analyze (package systemd)
#   - the page's 3D view: three.js from Debian (libjs-three, served by the daemon from
#     /usr/share/javascript/three; nothing is fetched at run time)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ci-speech-setup.sh
bash scripts/apt-install.sh chromium chromium-driver systemd libjs-three
