"""Layer D: dated facts with a category and the message they came from.

The same fact on the same day is stored once (compared case-, accent- and
punctuation-insensitively). A fact may name a `slot` (home_city, employer, partner…):
a new fact in an open slot ends the old one on the new fact's day instead of letting
both stand. Dates are the source messages' dates; the model never supplies one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from memory.db import Database, Transaction
from memory.text import fts_query, normalise_key, owner_token


class Category(StrEnum):
    WORK = "work"
    HEALTH = "health"
    FAMILY = "family"
    SOCIAL = "social"
    HOME = "home"
    TRAVEL = "travel"
    MONEY = "money"
    LEARNING = "learning"
    LEISURE = "leisure"
    MILESTONE = "milestone"
    OTHER = "other"


class FactOutcome(StrEnum):
    ADDED = "added"
    DUPLICATE = "duplicate"


@dataclass(frozen=True)
class FactDraft:
    day: date
    category: Category
    fact: str
    slot: str | None = None
    source_message_id: int | None = None


@dataclass(frozen=True)
class Fact(FactDraft):
    id: int = 0
    ended_on: date | None = None
    replaced_by: int | None = None

    @property
    def line(self) -> str:
        ended = f" (until {self.ended_on.isoformat()})" if self.ended_on else ""
        return f"[{self.id}] {self.day.isoformat()} {self.category.value}: {self.fact}{ended}"


@dataclass(frozen=True)
class AddedFact:
    outcome: FactOutcome
    fact_id: int
    ended: tuple[int, ...] = ()


class TimelineStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, tx: Transaction, user_key: str, draft: FactDraft, at: datetime) -> AddedFact:
        key = normalise_key(draft.fact)
        existing = await tx.fetchone(
            "SELECT id FROM memory_timeline WHERE user_key = ? AND day = ? AND fact_key = ?",
            (user_key, draft.day.isoformat(), key),
        )
        if existing is not None:
            return AddedFact(FactOutcome.DUPLICATE, int(existing["id"]))
        slot = normalise_key(draft.slot).replace(" ", "_") if draft.slot else None
        fact_id = await tx.execute(
            "INSERT INTO memory_timeline(user_key, day, category, fact, fact_key, slot, source_message_id,"
            " created_at) VALUES (?,?,?,?,?,?,?,?)",
            (user_key, draft.day.isoformat(), draft.category.value, draft.fact.strip(), key, slot,
             draft.source_message_id, at.isoformat()),
        )
        await tx.execute("INSERT INTO memory_timeline_fts(rowid, fact, owner) VALUES (?, ?, ?)",
                         (fact_id, draft.fact, owner_token(user_key)))
        ended: list[int] = []
        if slot:
            rows = await tx.fetchall(
                "SELECT id FROM memory_timeline WHERE user_key = ? AND slot = ? AND ended_on IS NULL"
                " AND id != ? AND day <= ?",
                (user_key, slot, fact_id, draft.day.isoformat()),
            )
            ended = [int(row["id"]) for row in rows]
            for old in ended:
                await tx.execute(
                    "UPDATE memory_timeline SET ended_on = ?, replaced_by = ? WHERE id = ?",
                    (draft.day.isoformat(), fact_id, old),
                )
        return AddedFact(FactOutcome.ADDED, fact_id, tuple(ended))

    async def between(self, user_key: str, start: date, end: date, limit: int = 200) -> list[Fact]:
        rows = await self._db.fetchall(
            "SELECT * FROM memory_timeline WHERE user_key = ? AND day BETWEEN ? AND ? ORDER BY day, id LIMIT ?",
            (user_key, start.isoformat(), end.isoformat(), limit),
        )
        return [_fact(row) for row in rows]

    async def on_day(self, user_key: str, day: date) -> list[Fact]:
        return await self.between(user_key, day, day)

    async def current(self, user_key: str) -> list[Fact]:
        """Facts in a slot that still hold (what consolidation must know to end them)."""
        rows = await self._db.fetchall(
            "SELECT * FROM memory_timeline WHERE user_key = ? AND slot IS NOT NULL AND ended_on IS NULL"
            " ORDER BY day, id", (user_key,),
        )
        return [_fact(row) for row in rows]

    async def search(self, user_key: str, query: str, limit: int = 20) -> list[Fact]:
        match = fts_query(query, user_key, "fact")
        if match is None:
            return []
        rows = await self._db.fetchall(
            "SELECT t.* FROM (SELECT rowid, bm25(memory_timeline_fts, 1.0, 0.0) AS score"
            " FROM memory_timeline_fts WHERE memory_timeline_fts MATCH ? ORDER BY score LIMIT ?) f"
            " CROSS JOIN memory_timeline t ON t.id = f.rowid WHERE t.user_key = ? ORDER BY f.score",
            (match, limit, user_key),
        )
        return [_fact(row) for row in rows]

    async def get(self, user_key: str, fact_id: int) -> Fact | None:
        row = await self._db.fetchone(
            "SELECT * FROM memory_timeline WHERE user_key = ? AND id = ?", (user_key, fact_id))
        return _fact(row) if row else None

    async def for_user(self, user_key: str) -> list[Fact]:
        rows = await self._db.fetchall(
            "SELECT * FROM memory_timeline WHERE user_key = ? ORDER BY day, id", (user_key,))
        return [_fact(row) for row in rows]

    async def delete(self, tx: Transaction, user_key: str, fact_ids: Sequence[int]) -> None:
        ids = list(fact_ids)
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        await tx.execute(f"DELETE FROM memory_timeline_fts WHERE rowid IN ({marks})", ids)
        await tx.execute(
            f"UPDATE memory_timeline SET replaced_by = NULL WHERE user_key = ? AND replaced_by IN ({marks})",
            (user_key, *ids),
        )
        await tx.execute(f"DELETE FROM memory_timeline WHERE +user_key = ? AND id IN ({marks})", (user_key, *ids))


def _fact(row: Any) -> Fact:
    get = row.__getitem__  # type: ignore[attr-defined]
    ended = get("ended_on")
    return Fact(
        id=get("id"),
        day=date.fromisoformat(get("day")),
        category=Category(get("category")),
        fact=get("fact"),
        slot=get("slot"),
        source_message_id=get("source_message_id"),
        ended_on=date.fromisoformat(ended) if ended else None,
        replaced_by=get("replaced_by"),
    )
