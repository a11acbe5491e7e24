#!/usr/bin/python3
"""A reference BERT sentence encoder in NumPy, and the random-weight models the encoder's golden
tests compare against it (Tests/Fixtures/README.md, "Random-weight models").

Run with Debian's /usr/bin/python3 and python3-numpy (apt-get install -y python3-numpy); nothing
else is needed (no torch, no transformers, no tokenizers). Written from the BERT paper (Devlin et
al. 2018, section 3) and Hugging Face's `BertModel` (modeling_bert.py: BertEmbeddings,
BertSelfAttention, BertSelfOutput, BertIntermediate, BertOutput) and `tokenizers`' BertNormalizer,
BertPreTokenizer and WordPiece (bert.rs, wordpiece/mod.rs), as sentence-transformers runs them:
one text at a time, no padding, f32 matrices, one BLAS call per matrix product, GELU with the
exact erf (math.erf), CLS or mean pooling, L2 normalization.

  check-minilm --model DIR --golden FILE
      Checks this reference against all-MiniLM-L6-v2's real weights and the golden vectors
      sentence-transformers computed: identical token ids and cosine >= 0.99999 for every row.
  make --out DIR --vocab FILE --golden FILE [--seed N] [--shapes bge-small,arctic-embed-m]
      Writes, for each shape, three model folders (f32, f16, bf16 safetensors) with random
      weights (std 0.1) and each one's reference.json: the golden texts' ids and vectors as
      passages and as queries (with the shape's query prompt), computed from the weights as
      stored (the f16 and bf16 ones widened to f32). Skips what is already there.
  embed --model DIR [--query-prompt P] [--query] TEXT...
      Prints {"ids": [...], "vectors": [...]} for the texts (the peer of `corpusd embed`).
  bench --model DIR [--query-prompt P] [--seconds S] [--batch N]
      The speed peer of `corpus-bench encoder` (scripts/bench-encoders.sh): the same forward pass
      in f32 (erf by the same kind of polynomial the encoder uses, not math.erf, which would
      measure Python calls), the tokens of a batch packed so each matrix product is one BLAS
      call; prints {"query_p50_ms", "passages_per_second"} for the same query and 128-token passages.
"""
import argparse
import json
import math
import os
import struct
import sys
import time
import unicodedata

import numpy as np

# ----------------------------------------------------------------------------- tokenizer

WHITESPACE = set("\t\n\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}
CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
       (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic_tokens(text, lowercase=True, strip_accents=None, chinese=True):
    """BertNormalizer (clean_text, handle_chinese_chars, strip_accents, lowercase), then
    BertPreTokenizer (split on whitespace, each punctuation character a word)."""
    if strip_accents is None:
        strip_accents = lowercase
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        if ch in WHITESPACE:
            out.append(" ")
        elif chinese and any(a <= cp <= b for a, b in CJK):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    s = "".join(out)
    if strip_accents:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    if lowercase:
        s = "".join(c.lower() for c in s)  # char by char, as Rust's normalizer
    words, cur = [], []
    for ch in s:
        if ch in WHITESPACE:
            if cur:
                words.append("".join(cur))
                cur = []
        elif is_punctuation(ch):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(ch)
        else:
            cur.append(ch)
    if cur:
        words.append("".join(cur))
    return words


class WordPiece:
    def __init__(self, vocab_file, lowercase=True, strip_accents=None, chinese=True):
        self.vocab = {}
        with open(vocab_file, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, line in enumerate(lines):
            token = line.rstrip(b"\r").decode("utf-8")
            self.vocab.setdefault(token, i)
        self.lowercase, self.strip_accents, self.chinese = lowercase, strip_accents, chinese

    def pieces(self, word):
        if len(word) > 100:
            return [self.vocab["[UNK]"]]
        out, start = [], 0
        while start < len(word):
            end, match = len(word), None
            while start < end:
                sub = ("##" if start > 0 else "") + word[start:end]
                if sub in self.vocab:
                    match = self.vocab[sub]
                    break
                end -= 1
            if match is None:
                return [self.vocab["[UNK]"]]
            out.append(match)
            start = end
        return out

    def encode(self, text, max_tokens):
        ids = []
        for w in basic_tokens(text, self.lowercase, self.strip_accents, self.chinese):
            ids.extend(self.pieces(w))
        return [self.vocab["[CLS]"]] + ids[: max_tokens - 2] + [self.vocab["[SEP]"]]


# ----------------------------------------------------------------------------- safetensors

def bf16_bits(a32):
    """Round-to-nearest-even f32 -> bf16 bit patterns (as torch's .to(torch.bfloat16))."""
    bits = a32.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) >> 16).astype(np.uint16)


def write_safetensors(path, tensors, dtype):
    """tensors: name -> f32 array; stored as dtype F32, F16 or BF16."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        if dtype == "F32":
            data = a.astype("<f4").tobytes()
        elif dtype == "F16":
            data = a.astype("<f2").tobytes()
        else:
            data = bf16_bits(a).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".partial"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def read_safetensors(path):
    """name -> f32 array, widening F16 and BF16."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        buf = raw[base + b : base + e]
        if info["dtype"] == "F32":
            a = np.frombuffer(buf, dtype="<f4")
        elif info["dtype"] == "F16":
            a = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        elif info["dtype"] == "BF16":
            a = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            continue
        out[name] = a.reshape(info["shape"]).astype(np.float32)
    return out


# ----------------------------------------------------------------------------- forward pass

_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x):
    """BERT's "gelu": x * 0.5 * (1 + erf(x / sqrt 2)), with the exact erf."""
    return (x * 0.5 * (1.0 + _erf(x.astype(np.float64) / math.sqrt(2.0)).astype(np.float64))).astype(np.float32)


def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # biased, as torch
    return ((x - mean) / np.sqrt(var + eps) * g + b).astype(np.float32)


class Model:
    def __init__(self, folder):
        self.config = json.load(open(os.path.join(folder, "config.json")))
        w = read_safetensors(os.path.join(folder, "model.safetensors"))
        suffix = "embeddings.word_embeddings.weight"
        prefix = min((k[: -len(suffix)] for k in w if k.endswith(suffix)), key=len)
        self.w = {k[len(prefix):]: v for k, v in w.items() if k.startswith(prefix)}
        self.heads = self.config["num_attention_heads"]
        self.layers = self.config["num_hidden_layers"]
        self.eps = np.float32(self.config.get("layer_norm_eps", 1e-12))

    def hidden_states(self, ids):
        w, n = self.w, len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = x.shape[1]
        dh = h // self.heads
        for l in range(self.layers):
            p = "encoder.layer.%d." % l

            def lin(t, name):
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(n, self.heads, dh).transpose(1, 0, 2)
            k = lin(x, "attention.self.key").reshape(n, self.heads, dh).transpose(1, 0, 2)
            v = lin(x, "attention.self.value").reshape(n, self.heads, dh).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(dh))
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(1, 0, 2).reshape(n, h)
            x = layer_norm(lin(ctx, "attention.output.dense") + x,
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = gelu(lin(x, "intermediate.dense"))
            x = layer_norm(lin(inter, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x

    def packed(self, sequences, fast_gelu):
        """hidden_states for several sequences at once: their tokens packed end to end, so each
        projection is one BLAS call over all of them; attention per sequence."""
        w = self.w
        lengths = [len(s) for s in sequences]
        offsets = np.cumsum([0] + lengths)
        ids = np.concatenate([np.asarray(s) for s in sequences])
        pos = np.concatenate([np.arange(n) for n in lengths])
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][pos] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = x.shape[1]
        dh = h // self.heads
        if not hasattr(self, "qkv"):
            self.qkv = [(np.concatenate([w["encoder.layer.%d.attention.self.%s.weight" % (l, p)] for p in ("query", "key", "value")]).T.copy(),
                         np.concatenate([w["encoder.layer.%d.attention.self.%s.bias" % (l, p)] for p in ("query", "key", "value")]))
                        for l in range(self.layers)]
            self.t = {k: v.T.copy() for k, v in w.items() if k.endswith("dense.weight")}
        scale = np.float32(1 / math.sqrt(dh))
        for l in range(self.layers):
            p = "encoder.layer.%d." % l
            qkv = x @ self.qkv[l][0] + self.qkv[l][1]
            ctx = np.empty_like(x)
            for s in range(len(sequences)):
                a, b = offsets[s], offsets[s + 1]
                n = b - a
                q = qkv[a:b, :h].reshape(n, self.heads, dh).transpose(1, 0, 2)
                k = qkv[a:b, h:2 * h].reshape(n, self.heads, dh).transpose(1, 0, 2)
                v = qkv[a:b, 2 * h:].reshape(n, self.heads, dh).transpose(1, 0, 2)
                sc = (q @ k.transpose(0, 2, 1)) * scale
                sc = np.exp(sc - sc.max(axis=-1, keepdims=True))
                sc /= sc.sum(axis=-1, keepdims=True)
                ctx[a:b] = (sc @ v).transpose(1, 0, 2).reshape(n, h)
            x = layer_norm(ctx @ self.t[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"] + x,
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = x @ self.t[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"]
            inter = fast_gelu(inter) if fast_gelu else gelu(inter)
            x = layer_norm(inter @ self.t[p + "output.dense.weight"] + w[p + "output.dense.bias"] + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x, offsets

    def embed(self, ids, pooling):
        x = self.hidden_states(ids)
        v = x[0] if pooling == "cls" else x.mean(axis=0)
        return (v / max(np.linalg.norm(v), 1e-12)).astype(np.float32)


def cosine(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# ----------------------------------------------------------------------------- random models

SHAPES = {
    # bge-small-en-v1.5's config.json; its folder names no prompts (the publisher declares the
    # query instruction in catalog.json).
    "bge-small": {
        "id": "bge-small-en-v1.5", "hidden": 384, "layers": 12, "heads": 12, "intermediate": 1536,
        "query_prompt": "Represent this sentence for searching relevant passages: ", "prompts_in_folder": False,
        "do_lower_case": True,
    },
    # snowflake-arctic-embed-m-v1.5's shape with the reader app's query prefix, in the folder.
    "arctic-embed-m": {
        "id": "snowflake-arctic-embed-m-v1.5", "hidden": 768, "layers": 12, "heads": 12, "intermediate": 3072,
        "query_prompt": "query: ", "prompts_in_folder": True, "do_lower_case": False,
    },
}
MAX_TOKENS = 512
VOCAB_SIZE = 30522


def random_weights(shape, seed):
    rng = np.random.default_rng(seed)
    h, i = shape["hidden"], shape["intermediate"]

    def r(*dims):
        return (rng.standard_normal(dims, dtype=np.float32) * np.float32(0.1)).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(VOCAB_SIZE, h),
        "embeddings.position_embeddings.weight": r(MAX_TOKENS, h),
        "embeddings.token_type_embeddings.weight": r(2, h),
        "embeddings.LayerNorm.weight": 1 + r(h),
        "embeddings.LayerNorm.bias": r(h),
        "pooler.dense.weight": r(h, h),
        "pooler.dense.bias": r(h),
    }
    for l in range(shape["layers"]):
        p = "encoder.layer.%d." % l
        for part in ("query", "key", "value"):
            w[p + "attention.self.%s.weight" % part] = r(h, h)
            w[p + "attention.self.%s.bias" % part] = r(h)
        w[p + "attention.output.dense.weight"] = r(h, h)
        w[p + "attention.output.dense.bias"] = r(h)
        w[p + "attention.output.LayerNorm.weight"] = 1 + r(h)
        w[p + "attention.output.LayerNorm.bias"] = r(h)
        w[p + "intermediate.dense.weight"] = r(i, h)
        w[p + "intermediate.dense.bias"] = r(i)
        w[p + "output.dense.weight"] = r(h, i)
        w[p + "output.dense.bias"] = r(h)
        w[p + "output.LayerNorm.weight"] = 1 + r(h)
        w[p + "output.LayerNorm.bias"] = r(h)
    return w


def write_folder(folder, shape, vocab, weights, dtype):
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)

    def put(name, obj):
        with open(os.path.join(folder, name), "w") as f:
            json.dump(obj, f, indent=2)

    put("config.json", {
        "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1, "classifier_dropout": None,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": shape["hidden"], "initializer_range": 0.02,
        "intermediate_size": shape["intermediate"], "layer_norm_eps": 1e-12, "max_position_embeddings": MAX_TOKENS,
        "model_type": "bert", "num_attention_heads": shape["heads"], "num_hidden_layers": shape["layers"],
        "pad_token_id": 0, "position_embedding_type": "absolute",
        "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype],
        "transformers_version": "4.39.3", "type_vocab_size": 2, "use_cache": True, "vocab_size": VOCAB_SIZE,
    })
    put("tokenizer_config.json", {
        "clean_up_tokenization_spaces": True, "cls_token": "[CLS]", "do_basic_tokenize": True, "do_lower_case": True,
        "mask_token": "[MASK]", "model_max_length": MAX_TOKENS, "never_split": None, "pad_token": "[PAD]",
        "sep_token": "[SEP]", "strip_accents": None, "tokenize_chinese_chars": True, "tokenizer_class": "BertTokenizer",
        "unk_token": "[UNK]",
    })
    put("sentence_bert_config.json", {"max_seq_length": MAX_TOKENS, "do_lower_case": shape["do_lower_case"]})
    st = {"__version__": {"sentence_transformers": "2.7.0", "transformers": "4.39.3", "pytorch": "2.2.2"}}
    if shape["prompts_in_folder"]:
        st["prompts"] = {"query": shape["query_prompt"], "document": ""}
        st["default_prompt_name"] = None
    put("config_sentence_transformers.json", st)
    put("modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    put("1_Pooling/config.json", {
        "word_embedding_dimension": shape["hidden"], "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
    })
    with open(vocab, "rb") as src, open(os.path.join(folder, "vocab.txt"), "wb") as dst:
        dst.write(src.read())
    write_safetensors(os.path.join(folder, "model.safetensors"), weights, dtype)


def golden_texts(golden_file):
    texts = [r["text"] for r in json.load(open(golden_file))["rows"]]
    # Beyond the MiniLM golden file: format and control characters, and a text longer than 512 tokens.
    texts.append("zero\u200bwidth soft\u00adhyphen bell\u0007 nul\u0000 bidi\u202eoverride")
    texts.append(" ".join("harbour lamp %d" % i for i in range(200)))
    return texts


def reference(folder, texts, pooling, query_prompt):
    model = Model(folder)
    tok = WordPiece(os.path.join(folder, "vocab.txt"))
    rows = []
    for t in texts:
        ids = tok.encode(t, MAX_TOKENS)
        qids = tok.encode(query_prompt + t, MAX_TOKENS)
        rows.append({"text": t, "ids": ids, "vector": [round(float(x), 7) for x in model.embed(ids, pooling)],
                     "query_ids": qids, "query_vector": [round(float(x), 7) for x in model.embed(qids, pooling)]})
    return rows


def make(args):
    os.makedirs(args.out, exist_ok=True)
    texts = golden_texts(args.golden)
    for name in args.shapes.split(","):
        shape = SHAPES[name]
        weights = None
        for dtype in ("F32", "F16", "BF16"):
            folder = os.path.join(args.out, "%s-%s" % (name, dtype.lower()))
            ref_path = folder + ".reference.json"
            if os.path.exists(ref_path):
                continue
            if weights is None:
                weights = random_weights(shape, args.seed + sorted(SHAPES).index(name))
            started = time.time()
            write_folder(folder, shape, args.vocab, weights, dtype)
            rows = reference(folder, texts, "cls", shape["query_prompt"])
            tmp = ref_path + ".partial"
            with open(tmp, "w") as f:
                json.dump({"model": shape["id"], "shape": name, "dtype": dtype, "seed": args.seed, "pooling": "cls",
                           "max_tokens": MAX_TOKENS, "query_prompt": shape["query_prompt"],
                           "query_prompt_in_folder": shape["prompts_in_folder"], "rows": rows}, f)
            os.replace(tmp, ref_path)
            print("made %s in %.1f s" % (folder, time.time() - started), file=sys.stderr)


def check_minilm(args):
    golden = json.load(open(args.golden))
    model = Model(args.model)
    tok = WordPiece(os.path.join(args.model, "vocab.txt"))
    worst, bad_ids = 1.0, []
    for r in golden["rows"]:
        ids = tok.encode(r["text"], golden["max_tokens"])
        if ids != r["ids"]:
            bad_ids.append(r["text"])
        worst = min(worst, cosine(model.embed(r["ids"], "mean"), r["vector"]))
    print(json.dumps({"rows": len(golden["rows"]), "ids_differ": bad_ids, "min_cosine": worst}))
    return 0 if not bad_ids and worst >= 0.99999 else 1


def embed(args):
    model = Model(args.model)
    tok = WordPiece(os.path.join(args.model, "vocab.txt"))
    pool = json.load(open(os.path.join(args.model, "1_Pooling", "config.json")))
    pooling = "cls" if pool.get("pooling_mode_cls_token") else "mean"
    prompt = args.query_prompt if args.query else ""
    ids = [tok.encode(prompt + t, args.max_tokens) for t in args.texts]
    print(json.dumps({"ids": ids, "vectors": [[float(x) for x in model.embed(i, pooling)] for i in ids]}))
    return 0


def fast_gelu(x):
    """GELU with erf by Abramowitz & Stegun 7.1.26 in f32 NumPy: the cost of an element-wise
    pass, as the encoder's, for the speed comparison only (the reference uses math.erf)."""
    a = np.abs(x) * np.float32(0.70710678)
    t = np.float32(1) / (np.float32(1) + np.float32(0.3275911) * a)
    poly = ((((np.float32(1.061405429) * t - np.float32(1.453152027)) * t + np.float32(1.421413741)) * t
             - np.float32(0.284496736)) * t + np.float32(0.254829592)) * t
    erf = np.copysign(np.float32(1) - poly * np.exp(-a * a), x)
    return x * np.float32(0.5) * (np.float32(1) + erf)


def bench(args):
    model = Model(args.model)
    tok = WordPiece(os.path.join(args.model, "vocab.txt"))
    query = tok.encode(args.query_prompt + "how do I rotate the signing key of a catalog", MAX_TOKENS)
    for _ in range(5):
        model.packed([query], fast_gelu)
    latencies, deadline = [], time.time() + args.seconds / 2
    while len(latencies) < 20 or (time.time() < deadline and len(latencies) < 1000):
        t = time.perf_counter()
        model.packed([query], fast_gelu)
        latencies.append(time.perf_counter() - t)
    latencies.sort()
    rng = np.random.default_rng(1)
    passages = [[101] + list(rng.integers(1000, 29000, 126)) + [102] for _ in range(args.batch)]
    model.packed(passages, fast_gelu)
    done, start = 0, time.perf_counter()
    while True:
        model.packed(passages, fast_gelu)
        done += len(passages)
        if time.perf_counter() - start >= args.seconds:
            break
    elapsed = time.perf_counter() - start
    print(json.dumps({"query_tokens": len(query), "query_p50_ms": latencies[len(latencies) // 2] * 1000,
                      "passages_per_second": done / elapsed}))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check-minilm")
    c.add_argument("--model", required=True)
    c.add_argument("--golden", required=True)
    m = sub.add_parser("make")
    m.add_argument("--out", required=True)
    m.add_argument("--vocab", required=True)
    m.add_argument("--golden", required=True)
    m.add_argument("--seed", type=int, default=29)
    m.add_argument("--shapes", default="bge-small,arctic-embed-m")
    e = sub.add_parser("embed")
    e.add_argument("--model", required=True)
    e.add_argument("--query", action="store_true")
    e.add_argument("--query-prompt", default="")
    e.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    e.add_argument("texts", nargs="+")
    b = sub.add_parser("bench")
    b.add_argument("--model", required=True)
    b.add_argument("--query-prompt", default="")
    b.add_argument("--seconds", type=float, default=4)
    b.add_argument("--batch", type=int, default=32)
    args = p.parse_args()
    return {"check-minilm": check_minilm, "make": make, "embed": embed, "bench": bench}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
