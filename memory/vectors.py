"""The vec0 table of card vectors, partitioned by user, and the record of which embedder made them.

KNN runs on binary-quantised vectors (one bit per dimension, 48 bytes for 384 dims) and the
candidates are re-scored exactly with the full float32 vector kept in an auxiliary column.
Sentence embeddings share a large common direction, so the bits are taken after
subtracting a centre (the mean of reference passages, fixed per embedder): without it the
signs carry little information (on LoCoMo, half of the exact top-40 was lost).
That keeps a search over 100k cards of one user in single-digit milliseconds and a chunk
small (1024 rows x 48 bytes per user partition instead of 1.5 MB of floats).
Past a few thousand cards a user's vectors are also split into coarse cells (a second
partition key; see memory/cells.py) and a search scans only the cells nearest the query.
Its width is fixed when it is created, so it is created here (not in a migration) from the
embedder in use. A vector of another width is refused with a clear error; a different
embedder means every card is re-embedded (see MemoryService.start).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from bot.errors import MayordomoError
from memory import cells
from memory.db import Database, Transaction
from memory.reembed import queue_reembed

log = logging.getLogger(__name__)

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
class Cells:
    """A user's cells: ids, their members' vector sums (what a probe ranks by) and counts."""

    ids: list[int]
    sums: np.ndarray
    members: list[int]
    trained_on: int

    @property
    def centroids(self) -> np.ndarray:
        return self.sums / np.maximum(np.linalg.norm(self.sums, axis=1, keepdims=True), 1e-12)


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
        self.cells_from = cells.CELLS_FROM
        self.probes = cells.PROBES
        self.cell_count = cells.CELLS
        self._cells: dict[str, Cells | None] = {}  # per user, read once (this process writes them)

    async def load(self) -> None:
        row = await self._db.fetchone("SELECT name, dim, center FROM memory_embedder WHERE singleton = 1")
        if row is not None:
            self._adopt_row(row)
            await self._add_cell_key()

    async def _add_cell_key(self) -> None:
        """Files made before cells existed: rebuild the table with the cell key (every card in
        cell 0), copying each card's float vector; nothing is re-embedded."""
        row = await self._db.fetchone("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,))
        if row is None or "cell INTEGER PARTITION KEY" in str(row["sql"]) or self.dim is None:
            return
        rows = await self._db.fetchall(f"SELECT card_id, user_key, vector FROM {TABLE}")
        kept = [(int(r["card_id"]), str(r["user_key"]), np.frombuffer(bytes(r["vector"]), dtype=np.float32))
                for r in rows]
        async with self._db.transaction() as tx:
            for card_id, _, _ in kept:  # zeroes each slot before the table's pages are freed
                await tx.execute(f"DELETE FROM {TABLE} WHERE card_id = ?", (card_id,))
            await tx.execute(f"DROP TABLE {TABLE}")
            await self._create(tx, self.dim)
            for card_id, user_key, vector in kept:
                await self._insert(tx, card_id, user_key, 0, vector)
        log.info("vector index: added the cell key (%d vectors copied)", len(kept))

    async def _create(self, tx: Transaction, dim: int) -> None:
        await tx.execute(
            f"CREATE VIRTUAL TABLE {TABLE} USING vec0(card_id INTEGER PRIMARY KEY,"
            f" user_key TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding bit[{dim}], +vector BLOB,"
            f" chunk_size={CHUNK_SIZE})"
        )

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
                await self._create(tx, dim)
            else:
                await self._zero_all(tx)
                await tx.execute(f"DELETE FROM {TABLE}")
            await tx.execute("DELETE FROM memory_vec_cells")  # another embedder's space
            self._cells.clear()
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
        self._check(vector)
        await self.delete(tx, [card_id])
        found = await self.cells_of(user_key, tx)
        cell = 0
        if found is not None:
            at = int(cells.assign(np.asarray(vector, dtype=np.float32), found.centroids)[0])
            cell = found.ids[at]
            await self._move(tx, user_key, found, at, np.asarray(vector, dtype=np.float32), +1)
        await self._insert(tx, card_id, user_key, cell, vector)

    async def _insert(self, tx: Transaction, card_id: int, user_key: str, cell: int, vector: np.ndarray) -> None:
        await tx.execute(
            f"INSERT INTO {TABLE}(card_id, user_key, cell, embedding, vector)"
            " VALUES (?, ?, ?, vec_quantize_binary(?), ?)",
            (card_id, user_key, cell, self._bits(vector), to_blob(vector)),
        )

    async def delete(self, tx: Transaction, card_ids: list[int]) -> None:
        """Delete vectors: sqlite-vec zeroes a deleted row's slot in its chunk, and the float
        copy is an ordinary row that secure_delete wipes (tests scan the file for both). The
        vector leaves its cell's sum too (a cell left empty is deleted)."""
        for card_id in card_ids:
            row = await tx.fetchone(f"SELECT user_key, cell, vector FROM {TABLE} WHERE card_id = ?", (card_id,))
            if row is None:
                continue
            user_key = str(row["user_key"])
            found = await self.cells_of(user_key, tx)
            if found is not None and int(row["cell"]) in found.ids:
                vector = np.frombuffer(bytes(row["vector"]), dtype=np.float32)
                await self._move(tx, user_key, found, found.ids.index(int(row["cell"])), vector, -1)
            await tx.execute(f"DELETE FROM {TABLE} WHERE card_id = ?", (card_id,))

    async def _move(self, tx: Transaction, user_key: str, found: Cells, at: int, vector: np.ndarray,
                    sign: int) -> None:
        """Add (+1) or take (-1) one unit vector to or from a cell's sum, in the caller's transaction."""
        unit = vector / max(float(np.linalg.norm(vector)), 1e-12)
        found.sums[at] = found.sums[at] + sign * unit
        found.members[at] += sign
        cell = found.ids[at]
        if found.members[at] <= 0:
            await tx.execute("DELETE FROM memory_vec_cells WHERE user_key = ? AND cell = ?", (user_key, cell))
            del found.ids[at], found.members[at]
            remaining = np.delete(found.sums, at, axis=0)
            self._cells[user_key] = (Cells(found.ids, remaining, found.members, found.trained_on)
                                     if found.ids else None)
            return
        await tx.execute("UPDATE memory_vec_cells SET centroid = ?, members = ? WHERE user_key = ? AND cell = ?",
                         (to_blob(found.sums[at]), found.members[at], user_key, cell))

    async def cells_of(self, user_key: str, tx: Transaction | None = None) -> Cells | None:
        """This user's cells (None while they have too few cards to have any)."""
        if user_key in self._cells:
            return self._cells[user_key]
        sql = "SELECT cell, centroid, members, trained_on FROM memory_vec_cells WHERE user_key = ? ORDER BY cell"
        rows = await (tx.fetchall(sql, (user_key,)) if tx is not None else self._db.fetchall(sql, (user_key,)))
        found = None
        if rows:
            sums = np.stack([np.frombuffer(bytes(r["centroid"]), dtype=np.float32) for r in rows]).copy()
            members = [int(r["members"]) for r in rows]
            found = Cells([int(r["cell"]) for r in rows], sums, members, int(rows[0]["trained_on"]))
        self._cells[user_key] = found
        return found

    async def _zero_all(self, tx: Transaction) -> None:
        rows = await tx.fetchall(f"SELECT card_id FROM {TABLE}")
        await self.delete(tx, [row["card_id"] for row in rows])

    async def nearest(self, user_key: str, vector: np.ndarray, k: int, coarse: int | None = None) -> list[Neighbour]:
        """The k closest cards of this user by cosine distance (binary KNN, exact re-scoring)."""
        found = await self.cells_of(user_key)
        probed = None if found is None else cells.probes(vector, found.ids, found.centroids, self.probes)
        sql, params = self.nearest_sql(user_key, vector, k, coarse, probed)
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

    async def nearest_among(self, card_ids: Sequence[int], vector: np.ndarray, k: int) -> list[Neighbour]:
        """The k of these cards (one user's, chosen by the caller) closest to the vector, exactly
        (cosine on the float copies)."""
        if not card_ids:
            return []
        rows = await self._db.fetchall(
            f"SELECT v.card_id AS card_id, vec_distance_cosine(v.vector, ?) AS distance FROM json_each(?) j"
            f" CROSS JOIN {TABLE} v ON v.card_id = j.value ORDER BY distance, v.card_id LIMIT ?",
            (self._check(vector), json.dumps(list(card_ids)), k))
        return [Neighbour(int(row["card_id"]), float(row["distance"])) for row in rows]

    def nearest_sql(self, user_key: str, vector: np.ndarray, k: int, coarse: int | None = None,
                    probed: list[int] | None = None) -> tuple[str, tuple[object, ...]]:
        """The binary KNN's statement and parameters (candidates for exact re-scoring); with
        `probed` cells, each cell gives its nearest and the best of them are re-scored."""
        self._check(vector)
        wanted = max(k, coarse or COARSE_MIN)
        if not probed:
            return (
                f"SELECT card_id, vector FROM {TABLE} WHERE embedding MATCH vec_quantize_binary(?) AND k = ?"
                " AND user_key = ?",
                (self._bits(vector), wanted, user_key),
            )
        marks = ",".join("?" * len(probed))
        # Each probed cell gives its own k nearest (a KNN's cost is the cell's slots times k), twice
        # its share of the candidates; the float vectors are read only for the best `wanted`
        # (point look-ups by card_id), not for every probed cell's candidates.
        per_cell = max(k, -(-2 * wanted // len(probed)))
        return (
            f"WITH near AS MATERIALIZED (SELECT card_id, distance FROM {TABLE}"
            f" WHERE embedding MATCH vec_quantize_binary(?) AND k = ? AND user_key = ? AND cell IN ({marks})),"
            " best AS MATERIALIZED (SELECT card_id FROM near ORDER BY distance, card_id LIMIT ?)"
            f" SELECT v.card_id AS card_id, v.vector AS vector FROM best CROSS JOIN {TABLE} v"
            " ON v.card_id = best.card_id",
            (self._bits(vector), per_cell, user_key, *probed, wanted),
        )

    async def refresh_cells(self, user_key: str) -> bool:
        """Split this user's vectors into cells once they are many, and again each time they have
        grown RETRAIN_GROWTH-fold since (maintenance after writing cards); True when it did."""
        row = await self._db.fetchone("SELECT COUNT(*) AS n FROM memory_cards WHERE user_key = ?", (user_key,))
        count = int(row["n"]) if row else 0
        found = await self.cells_of(user_key)
        if count < self.cells_from or (found is not None and count < found.trained_on * cells.RETRAIN_GROWTH):
            return False
        ids = [int(r["id"]) for r in await self._db.fetchall(
            "SELECT id FROM memory_cards WHERE user_key = ? ORDER BY id", (user_key,))]
        kept: list[tuple[int, np.ndarray]] = []
        for start in range(0, len(ids), 1000):
            rows = await self._db.fetchall(
                f"SELECT v.card_id AS card_id, v.vector AS vector FROM json_each(?) j CROSS JOIN {TABLE} v"
                " ON v.card_id = j.value", (json.dumps(ids[start:start + 1000]),))
            kept += [(int(r["card_id"]), np.frombuffer(bytes(r["vector"]), dtype=np.float32)) for r in rows]
        if len(kept) < self.cells_from:
            return False
        matrix = np.stack([vector for _, vector in kept])
        centroids = await asyncio.to_thread(cells.train, matrix, self.cell_count)
        members = cells.assign(cells.unit(matrix), centroids)
        # Fresh cell ids (0 is "no cells yet"): the partitions of earlier cells are left behind
        # empty, never scanned again.
        first = max(found.ids) + 1 if found is not None else 1
        async with self._db.transaction() as tx:
            await tx.execute("DELETE FROM memory_vec_cells WHERE user_key = ?", (user_key,))
            sums = np.zeros_like(centroids)
            np.add.at(sums, members, cells.unit(matrix))
            counts = np.bincount(members, minlength=len(centroids))
            used = [i for i in range(len(centroids)) if counts[i] > 0]
            for i in used:
                await tx.execute(
                    "INSERT INTO memory_vec_cells(user_key, cell, centroid, members, trained_on) VALUES (?,?,?,?,?)",
                    (user_key, first + i, to_blob(sums[i]), int(counts[i]), count))
            for (card_id, vector), member in zip(kept, members, strict=True):
                await tx.execute(f"DELETE FROM {TABLE} WHERE card_id = ?", (card_id,))
                await self._insert(tx, card_id, user_key, first + int(member), vector)
        self._cells[user_key] = Cells([first + i for i in used], sums[used].copy(),
                                      [int(counts[i]) for i in used], count)
        log.info("vector index: %d cards of one user split into %d cells", len(kept), len(used))
        return True
