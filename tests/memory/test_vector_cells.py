"""Coarse cells of a user's vectors: searched by the nearest cells, kept true when cards are forgotten."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.vectors import TABLE, VectorIndex

DIM = 32
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def file_bytes(db: Database) -> bytes:
    main = Path(db.path)
    wal = main.with_name(main.name + "-wal")
    return main.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


async def fill(db: Database, count: int, user_key: str = "telegram:ana") -> tuple[VectorIndex, CardStore, np.ndarray,
                                                                                  list[int]]:
    """Cards in eight tight groups (topics), each card a noisy copy of its group's direction."""
    vectors = VectorIndex(db)
    await vectors.adopt("test-32", DIM)
    vectors.cells_from = 64
    vectors.probes = 2
    vectors.cell_count = 8
    store = CardStore(db, vectors)
    rng = np.random.default_rng(3)
    topics = rng.standard_normal((8, DIM)).astype(np.float32)
    matrix = np.stack([topics[i % 8] + 0.15 * rng.standard_normal(DIM).astype(np.float32) for i in range(count)])
    ids: list[int] = []
    async with db.transaction() as tx:
        for i, vector in enumerate(matrix):
            when = START + timedelta(hours=i)
            draft = CardDraft(day=when.date(), started_at=when, ended_at=when, title=f"card {i}",
                              synthesis=f"note number {i}")
            ids.append(await store.insert(tx, user_key, draft, vector, when))
    return vectors, store, matrix, ids


async def test_a_user_with_many_cards_is_searched_in_the_cells_nearest_the_query(db: Database) -> None:
    vectors, _, matrix, ids = await fill(db, 200)
    exact = [n.card_id for n in await vectors.nearest("telegram:ana", matrix[5], 10)]
    assert await db.fetchall("SELECT 1 FROM memory_vec_cells") == []  # few cards: no cells, all scanned
    assert await vectors.refresh_cells("telegram:ana")
    cells = await db.fetchall("SELECT cell, members FROM memory_vec_cells WHERE user_key = ?", ("telegram:ana",))
    assert 1 < len(cells) and sum(row["members"] for row in cells) == 200
    assert not await vectors.refresh_cells("telegram:ana")  # not grown since: nothing to do
    # A card's vector lives in its cell's partition; the search probes two cells only, and still
    # finds the same nearest cards (its group's members are in the cells nearest it).
    rows = await db.fetchall(f"SELECT cell FROM {TABLE} WHERE card_id = ?", (ids[5],))
    assert rows[0]["cell"] in {row["cell"] for row in cells}
    probed = [n.card_id for n in await vectors.nearest("telegram:ana", matrix[5], 10)]
    assert probed[0] == ids[5] and set(probed) == set(exact)
    found = await vectors.cells_of("telegram:ana")
    assert found is not None
    sql, params = vectors.nearest_sql("telegram:ana", matrix[5], 10, None, found.ids[:2])
    plan = " | ".join(str(row["detail"]) for row in await db.fetchall("EXPLAIN QUERY PLAN " + sql, params))
    assert "VIRTUAL TABLE INDEX 0:3" in plan and "INDEX 17:2" in plan  # KNN in cells, then look-ups by id
    # A new card joins the cell of its nearest centroid and is found.
    async with db.transaction() as tx:
        late = START + timedelta(days=30)
        draft = CardDraft(day=late.date(), started_at=late, ended_at=late, title="late", synthesis="late note")
        new_id = await CardStore(db, vectors).insert(tx, "telegram:ana", draft, matrix[7] * 1.01, late)
    assert new_id in [n.card_id for n in await vectors.nearest("telegram:ana", matrix[7], 3)]


async def test_forgetting_a_card_takes_its_vector_out_of_its_cell(db: Database) -> None:
    vectors, store, matrix, ids = await fill(db, 120)
    await vectors.refresh_cells("telegram:ana")
    row = await db.fetchone(f"SELECT cell FROM {TABLE} WHERE card_id = ?", (ids[3],))
    cell = int(row["cell"])
    before = await db.fetchone("SELECT centroid, members FROM memory_vec_cells WHERE cell = ?", (cell,))
    old_sum = bytes(before["centroid"])
    await db.raw("PRAGMA wal_checkpoint(TRUNCATE)")
    assert old_sum in file_bytes(db)
    async with db.transaction() as tx:
        await store.delete(tx, [ids[3]])
    await db.raw("PRAGMA wal_checkpoint(TRUNCATE)")
    after = await db.fetchone("SELECT centroid, members FROM memory_vec_cells WHERE cell = ?", (cell,))
    assert after["members"] == before["members"] - 1
    members = await db.fetchall(f"SELECT card_id, vector FROM {TABLE} WHERE user_key = ? AND cell = ?",
                                ("telegram:ana", cell))
    remaining = np.stack([np.frombuffer(bytes(r["vector"]), dtype=np.float32) for r in members])
    remaining = remaining / np.linalg.norm(remaining, axis=1, keepdims=True)
    # The sum is the remaining members' alone; the sum that held the forgotten vector is gone
    # from the file, and so are the vector's own bytes.
    assert np.allclose(np.frombuffer(bytes(after["centroid"]), dtype=np.float32), remaining.sum(axis=0), atol=1e-4)
    data = file_bytes(db)
    assert old_sum not in data
    assert np.asarray(matrix[3], dtype=np.float32).tobytes()[:32] not in data
    # Forgetting every member of a cell deletes the cell.
    async with db.transaction() as tx:
        await store.delete(tx, [int(r["card_id"]) for r in members])
    assert await db.fetchall("SELECT 1 FROM memory_vec_cells WHERE cell = ?", (cell,)) == []


async def test_a_file_made_before_cells_gets_the_cell_key_and_keeps_its_vectors(db: Database) -> None:
    vectors = VectorIndex(db)
    await vectors.adopt("test-32", DIM)
    rng = np.random.default_rng(5)
    old = rng.standard_normal((3, DIM)).astype(np.float32)
    async with db.transaction() as tx:
        await tx.execute(f"DROP TABLE {TABLE}")
        await tx.execute(f"CREATE VIRTUAL TABLE {TABLE} USING vec0(card_id INTEGER PRIMARY KEY,"
                         f" user_key TEXT PARTITION KEY, embedding bit[{DIM}], +vector BLOB, chunk_size=8)")
        for i, vector in enumerate(old, start=1):
            await tx.execute(f"INSERT INTO {TABLE}(card_id, user_key, embedding, vector)"
                             " VALUES (?, 'telegram:ana', vec_quantize_binary(?), ?)",
                             (i, vector.tobytes(), vector.tobytes()))
    reopened = VectorIndex(db)
    await reopened.load()
    row = await db.fetchone("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,))
    assert "cell INTEGER PARTITION KEY" in row["sql"]
    assert [n.card_id for n in await reopened.nearest("telegram:ana", old[1], 1)] == [2]
