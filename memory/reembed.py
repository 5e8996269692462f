"""Re-embedding every card in batches, resumable: its progress is a row in the same SQLite file."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.db import Database, Transaction
from memory.embeddings import Embedder

if TYPE_CHECKING:  # the vector index queues re-embedding, and card stores hold that index
    from memory.cards import CardStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReembedProgress:
    done: int       # cards re-embedded in this run
    remaining: int  # cards still to do after this batch
    seconds: float  # spent in this run so far

    @property
    def cards_per_second(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0


async def queue_reembed(tx: Transaction, embedder_name: str) -> None:
    """Record (in the caller's transaction) that every card needs a vector from this embedder."""
    await tx.execute(
        "INSERT INTO memory_reembed(singleton, embedder, next_card_id, done) VALUES (1, ?, 0, 0)"
        " ON CONFLICT(singleton) DO UPDATE SET embedder = excluded.embedder, next_card_id = 0, done = 0",
        (embedder_name,),
    )


class Reembedder:
    def __init__(self, db: Database, cards: CardStore, embedder: Embedder, batch: int = 64) -> None:
        self._db = db
        self._cards = cards
        self._embedder = embedder
        self._batch = batch

    async def pending(self) -> bool:
        return await self._db.fetchone("SELECT 1 FROM memory_reembed WHERE singleton = 1") is not None

    async def queue(self) -> None:
        async with self._db.transaction() as tx:
            await queue_reembed(tx, self._embedder.name)

    async def run(self, on_progress: Callable[[ReembedProgress], None] | None = None) -> ReembedProgress:
        """Embed the cards still pending, in batches, committing progress with each batch."""
        began = time.perf_counter()
        done = 0
        remaining = 0
        while True:
            row = await self._db.fetchone("SELECT embedder, next_card_id FROM memory_reembed WHERE singleton = 1")
            if row is None:
                break
            if row["embedder"] != self._embedder.name:
                # Queued for another embedder than the one in use now: every card again.
                await self.queue()
                continue
            cards = await self._cards.from_id(int(row["next_card_id"]), self._batch)
            if not cards:
                async with self._db.transaction() as tx:
                    await tx.execute("DELETE FROM memory_reembed WHERE singleton = 1")
                break
            vectors = await self._embedder.embed([card.body for card in cards], is_query=False)
            async with self._db.transaction() as tx:
                for card, vector in zip(cards, vectors, strict=True):
                    await self._cards.vectors.put(tx, card.id, card.user_key, vector)
                await tx.execute(
                    "UPDATE memory_reembed SET next_card_id = ?, done = done + ? WHERE singleton = 1",
                    (cards[-1].id + 1, len(cards)))
            done += len(cards)
            remaining = await self._cards.count_from(cards[-1].id + 1)
            if on_progress is not None:
                on_progress(ReembedProgress(done, remaining, time.perf_counter() - began))
        result = ReembedProgress(done, 0, time.perf_counter() - began)
        if done:
            log.info("re-embedded %d cards with %s (%.1f cards/s)", done, self._embedder.name,
                     result.cards_per_second)
        return result
