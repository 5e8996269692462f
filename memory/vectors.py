"""The vec0 table of card vectors, partitioned by user, and the record of which embedder made them.

KNN runs on binary-quantised vectors (one bit per dimension, 48 bytes for 384 dims) and the
candidates are re-scored exactly with the full float32 vector kept in an auxiliary column.
Sentence embeddings share a large common direction, so the bits are taken after
subtracting a centre (the mean of reference passages, fixed per embedder): without it the
signs carry little information (on LoCoMo, half of the exact top-40 was lost).
That keeps a search over 100k cards of one user in single-digit milliseconds and a chunk
small (1024 rows x 48 bytes per user partition instead of 1.5 MB of floats).
Its width is fixed when it is created, so it is created here (not in a migration) from the
embedder in use. A vector of another width is refused with a clear error; a different
embedder means every card is re-embedded (see MemoryService.start).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from bot.errors import MayordomoError
from memory.db import Database, Transaction
from memory.reembed import queue_reembed

TABLE = "memory_cards_vec"
# vec0 allocates whole chunks per partition (user); with 1-bit vectors a chunk of 1024 rows
# costs 48 KB for 384 dims (1024 float32 rows would cost 1.5 MB per user).
CHUNK_SIZE = 1024
# Binary candidates re-scored exactly; more is closer to exact KNN, and slower.
COARSE_MIN = 96


class VectorWidthError(MayordomoError):
    """A vector does not have the width of the index (embedders were mixed)."""


class EmbedderChange(StrEnum):
    NEW = "new"            # first use: index created
    SAME = "same"          # nothing to do
    REEMBED = "reembed"    # another embedder of the same width: vectors replaced
    REBUILT = "rebuilt"    # another width: index recreated, vectors replaced


@dataclass(frozen=True)
class Neighbour:
    card_id: int
    distance: float


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class VectorIndex:
    def __init__(self, db: Database) -> None:
        self._db = db
        self.dim: int | None = None
        self.embedder_name: str | None = None
        self.center: np.ndarray | None = None

    async def load(self) -> None:
        row = await self._db.fetchone("SELECT name, dim, center FROM memory_embedder WHERE singleton = 1")
        if row is not None:
            self._adopt_row(row)

    def _adopt_row(self, row: Any) -> None:
        self.embedder_name, self.dim = row["name"], int(row["dim"])
        self.center = np.frombuffer(bytes(row["center"]), dtype=np.float32).copy()

    async def adopt(self, name: str, dim: int, center: np.ndarray | None = None) -> EmbedderChange:
        """Make the index fit this embedder; the caller re-embeds unless SAME.

        `center` (the mean of reference passages) is only used when the index is (re)built.
        """
        if dim <= 0 or dim % 8:
            raise VectorWidthError(f"embedding width {dim} is not a positive multiple of 8")
        await self.load()
        if self.embedder_name == name and self.dim == dim:
            return EmbedderChange.SAME
        centre = np.zeros(dim, dtype=np.float32) if center is None else np.asarray(center, dtype=np.float32)
        if centre.shape != (dim,):
            raise VectorWidthError(f"the centre has {centre.shape[-1]} dimensions, expected {dim}")
        previous = self.dim
        async with self._db.transaction() as tx:
            if previous is None or previous != dim:
                await tx.execute(f"DROP TABLE IF EXISTS {TABLE}")
                await tx.execute(
                    f"CREATE VIRTUAL TABLE {TABLE} USING vec0(card_id INTEGER PRIMARY KEY,"
                    f" user_key TEXT PARTITION KEY, embedding bit[{dim}], +vector BLOB,"
                    f" chunk_size={CHUNK_SIZE})"
                )
            else:
                await self._zero_all(tx)
                await tx.execute(f"DELETE FROM {TABLE}")
            await tx.execute(
                "INSERT INTO memory_embedder(singleton, name, dim, center) VALUES (1, ?, ?, ?)"
                " ON CONFLICT(singleton) DO UPDATE SET name = excluded.name, dim = excluded.dim,"
                " center = excluded.center",
                (name, dim, to_blob(centre)),
            )
            if previous is not None:
                await queue_reembed(tx, name)  # with the change itself: a crash cannot lose it
        self.embedder_name, self.dim, self.center = name, dim, centre
        if previous is None:
            return EmbedderChange.NEW
        return EmbedderChange.REEMBED if previous == dim else EmbedderChange.REBUILT

    def _bits(self, vector: np.ndarray) -> bytes:
        centred = np.asarray(vector, dtype=np.float32) - (self.center if self.center is not None else 0.0)
        return to_blob(centred)

    def _check(self, vector: np.ndarray) -> bytes:
        if self.dim is None:
            raise VectorWidthError("the vector index has no embedder yet (MemoryService.start adopts one)")
        width = int(np.asarray(vector).shape[-1])
        if width != self.dim:
            raise VectorWidthError(
                f"a {width}-dimensional vector cannot join the {self.dim}-dimensional index made by "
                f"{self.embedder_name}; mixing embedders is refused: change MEMORY_EMBEDDER and restart "
                "so every card is re-embedded"
            )
        return to_blob(vector)

    async def put(self, tx: Transaction, card_id: int, user_key: str, vector: np.ndarray) -> None:
        blob = self._check(vector)
        await tx.execute(f"DELETE FROM {TABLE} WHERE card_id = ?", (card_id,))
        await tx.execute(
            f"INSERT INTO {TABLE}(card_id, user_key, embedding, vector) VALUES (?, ?, vec_quantize_binary(?), ?)",
            (card_id, user_key, self._bits(vector), blob),
        )

    async def delete(self, tx: Transaction, card_ids: list[int]) -> None:
        """Delete vectors: sqlite-vec zeroes a deleted row's slot in its chunk, and the float
        copy is an ordinary row that secure_delete wipes (tests scan the file for both)."""
        if not card_ids:
            return
        for card_id in card_ids:
            await tx.execute(f"DELETE FROM {TABLE} WHERE card_id = ?", (card_id,))

    async def _zero_all(self, tx: Transaction) -> None:
        rows = await tx.fetchall(f"SELECT card_id FROM {TABLE}")
        await self.delete(tx, [row["card_id"] for row in rows])

    async def nearest(self, user_key: str, vector: np.ndarray, k: int, coarse: int | None = None) -> list[Neighbour]:
        """The k closest cards of this user by cosine distance (binary KNN, exact re-scoring)."""
        sql, params = self.nearest_sql(user_key, vector, k, coarse)
        rows = await self._db.fetchall(sql, params)
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(bytes(row["vector"]) for row in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), -1)
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        distances = 1.0 - (matrix @ query) / np.maximum(norms, 1e-12)
        order = np.argsort(distances, kind="stable")[:k]
        return [Neighbour(int(rows[i]["card_id"]), float(distances[i])) for i in order]

    def nearest_sql(self, user_key: str, vector: np.ndarray, k: int,
                    coarse: int | None = None) -> tuple[str, tuple[object, ...]]:
        """The binary KNN's statement and parameters (candidates for exact re-scoring)."""
        self._check(vector)
        return (
            f"SELECT card_id, vector FROM {TABLE} WHERE embedding MATCH vec_quantize_binary(?) AND k = ?"
            " AND user_key = ?",
            (self._bits(vector), max(k, coarse or COARSE_MIN), user_key),
        )
