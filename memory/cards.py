"""Layer B: summary cards (date, topics, facts, decisions, synthesis, source message ids)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np

from memory.db import Database, Transaction
from memory.entities import anchor_day, names
from memory.messages import StoredMessage
from memory.text import fts_query, owner_token
from memory.vectors import VectorIndex

# Matching cards (newest first) that keyword search scores; see CardStore.keyword_sql.
KEYWORD_WINDOW = 2000


@dataclass(frozen=True)
class CardDraft:
    """A card before it has an id (what consolidation, `remember` or a bench writes)."""

    day: date
    started_at: datetime
    ended_at: datetime
    title: str
    synthesis: str
    topics: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    source_ids: tuple[int, ...] = ()

    @property
    def details(self) -> str:
        """Topics, facts and decisions: the third FTS field."""
        return " ".join([*self.topics, *self.facts, *self.decisions])

    @property
    def named_text(self) -> str:
        """Where the names a card links by are looked for (sentences, so openers are known)."""
        return ". ".join(part for part in (self.title, self.synthesis, *self.topics, *self.facts, *self.decisions)
                         if part.strip())

    @property
    def body(self) -> str:
        """What is indexed and embedded: every field a question may hit."""
        parts = [f"{self.title}.", self.synthesis]
        if self.topics:
            parts.append("Topics: " + ", ".join(self.topics) + ".")
        if self.facts:
            parts.append("Facts: " + " ".join(self.facts))
        if self.decisions:
            parts.append("Decisions: " + " ".join(self.decisions))
        return " ".join(part for part in parts if part.strip())


@dataclass(frozen=True)
class CardName:
    """A name a card mentions, and the day the card is about."""

    card_id: int
    name: str
    day: date


@dataclass(frozen=True)
class Card(CardDraft):
    id: int = 0
    user_key: str = ""


class CardStore:
    def __init__(self, db: Database, vectors: VectorIndex) -> None:
        self._db = db
        self.vectors = vectors

    async def insert(self, tx: Transaction, user_key: str, draft: CardDraft, vector: np.ndarray,
                     created_at: datetime) -> int:
        card_id = await tx.execute(
            "INSERT INTO memory_cards(user_key, day, started_at, ended_at, title, topics, facts,"
            " decisions, synthesis, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (user_key, draft.day.isoformat(), draft.started_at.isoformat(), draft.ended_at.isoformat(),
             draft.title, _dump(draft.topics), _dump(draft.facts), _dump(draft.decisions),
             draft.synthesis, created_at.isoformat()),
        )
        await tx.executemany(
            "INSERT OR IGNORE INTO memory_card_sources(card_id, message_id) VALUES (?, ?)",
            [(card_id, message_id) for message_id in draft.source_ids],
        )
        await tx.execute(
            "INSERT INTO memory_cards_fts(rowid, title, synthesis, details, owner) VALUES (?, ?, ?, ?, ?)",
            (card_id, draft.title, draft.synthesis, draft.details, owner_token(user_key)))
        await self.vectors.put(tx, card_id, user_key, vector)
        about = (anchor_day(draft.synthesis, draft.day) or draft.day).isoformat()
        await tx.executemany(
            "INSERT OR IGNORE INTO memory_card_names(card_id, user_key, name, day) VALUES (?, ?, ?, ?)",
            [(card_id, user_key, name, about) for name in names(draft.named_text)],
        )
        return card_id

    async def get(self, user_key: str, card_id: int) -> Card | None:
        found = await self.many(user_key, [card_id])
        return found.get(card_id)

    async def many(self, user_key: str, card_ids: Sequence[int]) -> dict[int, Card]:
        """Cards by id, only this user's (another user's id simply is not found)."""
        rows = await self._rows_by_id(user_key, card_ids, "*")
        sources = await self._sources([row["id"] for row in rows])
        return {row["id"]: _card(row, sources.get(row["id"], ())) for row in rows}

    async def syntheses(self, user_key: str, card_ids: Sequence[int]) -> dict[int, str]:
        """What each card says, by id (only this user's): a lighter read than `many` when that is all needed."""
        return {row["id"]: row["synthesis"] for row in await self._rows_by_id(user_key, card_ids, "id, synthesis")}

    async def _rows_by_id(self, user_key: str, card_ids: Sequence[int], columns: str) -> list[Any]:
        # The one place a lookup by id filters by user: an id of another user's card finds nothing.
        if not card_ids:
            return []
        marks = ",".join("?" * len(card_ids))
        return await self._db.fetchall(
            f"SELECT {columns} FROM memory_cards WHERE +user_key = ? AND id IN ({marks})", (user_key, *card_ids)
        )

    async def for_user(self, user_key: str, limit: int | None = None) -> list[Card]:
        rows = await self._db.fetchall(
            "SELECT * FROM memory_cards WHERE user_key = ? ORDER BY day DESC, id DESC LIMIT ?",
            (user_key, limit if limit is not None else -1),
        )
        sources = await self._sources([row["id"] for row in rows])
        return [_card(row, sources.get(row["id"], ())) for row in rows]

    async def from_id(self, first_id: int, limit: int) -> list[Card]:
        """Cards of every user from this id on, in id order (maintenance: re-embedding)."""
        rows = await self._db.fetchall("SELECT * FROM memory_cards WHERE id >= ? ORDER BY id LIMIT ?",
                                       (first_id, limit))
        sources = await self._sources([row["id"] for row in rows])
        return [_card(row, sources.get(row["id"], ())) for row in rows]

    async def count_from(self, first_id: int) -> int:
        row = await self._db.fetchone("SELECT COUNT(*) AS n FROM memory_cards WHERE id >= ?", (first_id,))
        return int(row["n"]) if row else 0

    async def count(self, user_key: str) -> int:
        row = await self._db.fetchone("SELECT COUNT(*) AS n FROM memory_cards WHERE user_key = ?", (user_key,))
        return int(row["n"]) if row else 0

    async def source_messages(self, user_key: str, card_id: int) -> list[StoredMessage]:
        """Open a card back into the conversation it came from."""
        from memory.messages import _row

        rows = await self._db.fetchall(
            "SELECT m.* FROM memory_card_sources s JOIN memory_cards c ON c.id = s.card_id"
            " JOIN messages m ON m.id = s.message_id"
            " WHERE s.card_id = ? AND c.user_key = ? AND m.user_key = ? ORDER BY m.id",
            (card_id, user_key, user_key),
        )
        return [_row(row) for row in rows]

    async def keyword(self, user_key: str, query: str, k: int,
                      weights: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> list[tuple[int, float]]:
        """BM25 ranking (best first) of this user's cards; weights: title, synthesis, details."""
        sql, params = self.keyword_sql(user_key, query, k, weights)
        if not sql:
            return []
        rows = await self._db.fetchall(sql, params)
        return [(int(row["id"]), float(row["score"])) for row in rows]

    def keyword_sql(self, user_key: str, query: str, k: int,
                    weights: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> tuple[str, tuple[object, ...]]:
        """The keyword search's statement and parameters (empty when the query has no content word)."""
        match = fts_query(query, user_key, "{title synthesis details}")
        if match is None:
            return "", ()
        title, synthesis, details = (float(w) for w in weights)
        # Only the newest KEYWORD_WINDOW matching cards are scored: FTS5 walks the doclists in
        # rowid order and stops there, where ORDER BY bm25 would score every match (work growing
        # with the whole memory). Older cards stay reachable by meaning (the vector side covers
        # all) and by rarer words (fewer matches reach further back).
        # CROSS JOIN keeps the FTS index as the outer loop; the join re-checks the owner.
        return (
            "SELECT f.rowid AS id, f.score AS score FROM (SELECT rowid, bm25(memory_cards_fts, ?, ?, ?, 0.0)"
            " AS score FROM memory_cards_fts WHERE memory_cards_fts MATCH ? ORDER BY rowid DESC LIMIT ?) f"
            " CROSS JOIN memory_cards c ON c.id = f.rowid WHERE c.user_key = ? ORDER BY f.score, f.rowid DESC LIMIT ?",
            (title, synthesis, details, match, KEYWORD_WINDOW, user_key, k),
        )

    async def names_of(self, user_key: str, card_ids: Sequence[int]) -> list[CardName]:
        """The names these cards of this user mention, with the day each card is about."""
        if not card_ids:
            return []
        marks = ",".join("?" * len(card_ids))
        rows = await self._db.fetchall(
            f"SELECT card_id, name, day FROM memory_card_names WHERE user_key = ? AND card_id IN ({marks})",
            (user_key, *card_ids))
        return [CardName(int(row["card_id"]), row["name"], date.fromisoformat(row["day"])) for row in rows]

    async def mentioning(self, user_key: str, name: str, start: date, end: date, limit: int) -> list[CardName]:
        """This user's cards that mention the name and are about a day in [start, end]."""
        rows = await self._db.fetchall(
            "SELECT card_id, name, day FROM memory_card_names WHERE user_key = ? AND name = ?"
            " AND day BETWEEN ? AND ? LIMIT ?", (user_key, name, start.isoformat(), end.isoformat(), limit))
        return [CardName(int(row["card_id"]), row["name"], date.fromisoformat(row["day"])) for row in rows]

    async def ids_between(self, user_key: str, start: date, end: date, limit: int) -> list[int]:
        """Ids of this user's cards about days in [start, end], newest first, at most `limit`."""
        rows = await self._db.fetchall(
            "SELECT id FROM memory_cards WHERE user_key = ? AND day BETWEEN ? AND ? ORDER BY day DESC, id DESC"
            " LIMIT ?", (user_key, start.isoformat(), end.isoformat(), limit))
        return [int(row["id"]) for row in rows]

    async def name_shares(self, user_key: str, asked: Sequence[str], sample: int, floor: int = 1) -> dict[str, float]:
        """The share of this user's newest `sample` cards that mention each name (a bounded look:
        the newest cards by day, then one primary-key probe per card and name); a memory of fewer
        than `floor` cards counts as `floor` cards."""
        if not asked:
            return {}
        marks = ",".join("?" * len(asked))
        rows = await self._db.fetchall(
            "WITH recent AS MATERIALIZED (SELECT id FROM memory_cards WHERE user_key = ?"
            " ORDER BY day DESC, id DESC LIMIT ?)"
            " SELECT (SELECT COUNT(*) FROM recent) AS cards, n.name AS name, COUNT(*) AS mentions"
            f" FROM recent r CROSS JOIN memory_card_names n ON n.card_id = r.id AND n.name IN ({marks})"
            " GROUP BY n.name", (user_key, sample, *asked))
        return {row["name"]: int(row["mentions"]) / max(int(row["cards"]), floor, 1) for row in rows}

    async def delete(self, tx: Transaction, card_ids: Sequence[int]) -> None:
        ids = list(card_ids)
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        await tx.execute(f"DELETE FROM memory_cards_fts WHERE rowid IN ({marks})", ids)
        await self.vectors.delete(tx, ids)
        await tx.execute(f"DELETE FROM memory_card_sources WHERE card_id IN ({marks})", ids)
        await tx.execute(f"DELETE FROM memory_card_names WHERE card_id IN ({marks})", ids)
        await tx.execute(f"DELETE FROM memory_cards WHERE id IN ({marks})", ids)

    async def _sources(self, card_ids: Sequence[int]) -> dict[int, tuple[int, ...]]:
        if not card_ids:
            return {}
        marks = ",".join("?" * len(card_ids))
        rows = await self._db.fetchall(
            f"SELECT card_id, message_id FROM memory_card_sources WHERE card_id IN ({marks})"
            " ORDER BY message_id", list(card_ids),
        )
        found: dict[int, list[int]] = {}
        for row in rows:
            found.setdefault(row["card_id"], []).append(row["message_id"])
        return {key: tuple(value) for key, value in found.items()}


def _dump(items: Sequence[str]) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def _card(row: Any, sources: tuple[int, ...]) -> Card:
    get = row.__getitem__  # type: ignore[attr-defined]
    return Card(
        id=get("id"),
        user_key=get("user_key"),
        day=date.fromisoformat(get("day")),
        started_at=datetime.fromisoformat(get("started_at")),
        ended_at=datetime.fromisoformat(get("ended_at")),
        title=get("title"),
        synthesis=get("synthesis"),
        topics=tuple(json.loads(get("topics"))),
        facts=tuple(json.loads(get("facts"))),
        decisions=tuple(json.loads(get("decisions"))),
        source_ids=sources,
    )
