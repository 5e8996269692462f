"""The memory, assembled: stores, retrieval, consolidation, diary and forget behind one object.

It knows nothing of skills: the memory, timeline and diary skills are built from it in
`tools/skills/`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.config import Settings
from bot.core.events import ChatRef
from bot.errors import ToolError
from bot.llm import ModelClient
from memory.attachments import AttachmentStore
from memory.cards import CardDraft, CardStore
from memory.consolidation import Consolidator, PassResult
from memory.db import Database
from memory.decompose import QuestionSplitter
from memory.diary import DiaryOutcome, DiaryResult, DiaryStore, DiaryWriter
from memory.embeddings import Embedder, Vector, build_embedder, centre_of
from memory.forget import Forgetter
from memory.messages import StoredMessage, _row
from memory.profile import ProfileStore
from memory.reembed import Reembedder
from memory.retrieval import Hit, RetrievalTuning, Retriever, SharedVector
from memory.timeline import Category, FactDraft, TimelineStore
from memory.tuning import tune_for_retrieval
from memory.vectors import EmbedderChange, VectorIndex

if TYPE_CHECKING:
    from bot.core.routing import QueryEmbedding

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Remembered:
    fact_id: int
    card_id: int
    duplicate: bool


class MemoryService:
    """Everything memory does for one database; every call is scoped by a user key."""

    def __init__(self, settings: Settings, db: Database, clock: Clock, embedder: Embedder,
                 model: ModelClient | None) -> None:
        memory = settings.memory
        self.settings = settings
        self.db = db
        self.clock = clock
        self.zone: ZoneInfo = settings.core.zone
        self.embedder = embedder
        self.vectors = VectorIndex(db)
        self.cards = CardStore(db, self.vectors)
        self.profile = ProfileStore(db, memory.profile_budget_chars)
        self.timeline = TimelineStore(db)
        self._consolidating: set[str] = set()
        self.diary = DiaryStore(db)
        self.retriever = Retriever(self.cards, embedder,
                                   RetrievalTuning(age_half_life_days=memory.age_half_life_days))
        if memory.decompose_questions and model is not None:
            self.retriever.splitter = QuestionSplitter(model)
        self.reembedder = Reembedder(db, self.cards, embedder)
        self.attachments = AttachmentStore(db)
        self.forgetter = Forgetter(db, self.cards, self.timeline, self.profile, self.diary, embedder, clock,
                                   self.attachments)
        self.consolidator: Consolidator | None = None
        self.diary_writer: DiaryWriter | None = None
        if model is not None:
            self.consolidator = Consolidator(
                db, model, embedder, self.cards, self.profile, self.timeline, clock, self.zone,
                token_threshold=memory.consolidate_tokens, idle=timedelta(minutes=memory.idle_minutes),
                max_messages=memory.max_messages_per_pass)
            self.diary_writer = DiaryWriter(db, model, self.diary, self.timeline, clock, self.zone)

    async def start(self) -> EmbedderChange:
        """Adopt the configured embedder; a different one re-embeds every card (resuming an
        interrupted re-embedding first)."""
        await tune_for_retrieval(self.db)
        await self.vectors.load()
        change = EmbedderChange.SAME
        if self.vectors.embedder_name != self.embedder.name or self.vectors.dim != self.embedder.dim:
            change = await self.vectors.adopt(self.embedder.name, self.embedder.dim,
                                              await centre_of(self.embedder))
        if await self.reembedder.pending():
            await self.reembedder.run()
            await self.refresh_vector_cells()
        return change

    async def refresh_vector_cells(self) -> None:
        """Cells of every user's vectors, trained again after all of them were re-embedded."""
        rows = await self.db.fetchall("SELECT DISTINCT user_key FROM memory_cards ORDER BY 1")
        for row in rows:
            await self.vectors.refresh_cells(row["user_key"])

    async def _consolidate_pass(self, user_key: str) -> PassResult:
        """One consolidation pass, then the vector cells' upkeep for the cards it wrote."""
        assert self.consolidator is not None
        result = await self.consolidator.run(user_key)
        await self.vectors.refresh_cells(user_key)
        return result

    # -- reading -------------------------------------------------------------------------
    async def recall(self, user_key: str, query: str, limit: int | None = None,
                     query_vector: Vector | SharedVector | None = None) -> list[Hit]:
        """`query_vector`: the query's embedding when the turn makes one anyway, or how to await it (saves a
        second)."""
        now = self.clock.now()
        return await self.retriever.search(user_key, query, limit or self.settings.memory.retrieval_results,
                                           now, query_vector=query_vector, today=now.astimezone(self.zone).date())

    async def stable(self, user_key: str) -> str | None:
        """PromptSource: the profile, in the cached prefix."""
        text = (await self.profile.get(user_key)).render()
        return f"What you know about the user (their profile):\n{text}" if text else None

    async def volatile(self, chat: ChatRef, text: str,
                       query: Callable[[], Awaitable[QueryEmbedding | None]] | None = None) -> str | None:
        """PromptSource: memories relevant to this message, within the character budget."""

        async def shared() -> Vector | None:
            # The router embeds this message anyway; its vector serves when the model is ours.
            made = await query() if query is not None else None
            return made.vector if made is not None and made.model == self.embedder.name else None

        hits = await self.recall(chat.user_key, text, query_vector=shared if query is not None else None)
        budget = self.settings.memory.retrieval_budget_chars
        lines: list[str] = []
        used = 0
        for hit in hits:
            line = f"- [{hit.card.day.isoformat()}] {hit.card.title}: {hit.card.synthesis}"
            if used + len(line) > budget:
                room = budget - used
                if room < 80:
                    break
                line = line[:room - 1] + "…"
            lines.append(line)
            used += len(line)
        if not lines:
            return None
        return "Possibly relevant memories (from past conversations; may be outdated):\n" + "\n".join(lines)

    # -- writing -------------------------------------------------------------------------
    async def remember(self, user_key: str, fact: str, category: Category, *, slot: str | None = None) -> Remembered:
        """A fact the user asked to keep: a timeline fact dated by their message, and a card."""
        fact = fact.strip()
        if not fact:
            raise ToolError("the fact is empty")
        now = self.clock.now()
        row = await self.db.fetchone(
            "SELECT id, created_at FROM messages WHERE user_key = ? AND role = 'user' ORDER BY id DESC LIMIT 1",
            (user_key,))
        source_id = int(row["id"]) if row else None
        said_at = datetime.fromisoformat(row["created_at"]) if row else now
        day = said_at.astimezone(self.zone).date()
        draft = CardDraft(day=day, started_at=said_at, ended_at=said_at, title=_title(fact), synthesis=fact,
                          topics=(category.value,), source_ids=(source_id,) if source_id else ())
        [vector] = await self.embedder.embed([draft.body], is_query=False)
        async with self.db.transaction() as tx:
            added = await self.timeline.add(tx, user_key, FactDraft(day, category, fact, slot, source_id), now)
            if added.outcome == "duplicate":
                return Remembered(added.fact_id, 0, True)
            card_id = await self.cards.insert(tx, user_key, draft, vector, now)
        return Remembered(added.fact_id, card_id, False)

    async def consolidate(self, user_key: str) -> PassResult | None:
        if self.consolidator is None:
            return None
        return await self._consolidate_pass(user_key)

    async def after_turn(self, chat: ChatRef, turn_id: int) -> None:
        """Turn listener (run after the turn, in the background): consolidate once enough
        unprocessed text has piled up; one pass per user at a time."""
        user_key = chat.user_key
        if self.consolidator is None or user_key in self._consolidating:
            return
        self._consolidating.add(user_key)
        try:
            if await self.consolidator.due(user_key, idle_check=False):
                await self._consolidate_pass(user_key)
        finally:
            self._consolidating.discard(user_key)

    async def consolidate_idle(self, fired_at: datetime) -> list[str]:
        """Periodic job: every user whose conversation went quiet or grew large."""
        done: list[str] = []
        if self.consolidator is None:
            return done
        for user_key in await self.consolidator.users_with_pending():
            if await self.consolidator.due(user_key, idle_check=True):
                await self._consolidate_pass(user_key)
                done.append(user_key)
        return done

    async def write_diary(self, user_key: str, day: date) -> DiaryResult:
        if self.diary_writer is None:
            return DiaryResult(DiaryOutcome.FAILED)
        if self.consolidator is not None:
            await self._consolidate_pass(user_key)
        return await self.diary_writer.write(user_key, day)

    def diary_day(self, fired_at: datetime) -> date:
        """The day a nightly run writes about: today, or yesterday when it runs after midnight."""
        local = fired_at.astimezone(self.zone)
        return local.date() if local.hour >= 12 else local.date() - timedelta(days=1)

    async def messages_of(self, user_key: str) -> list[StoredMessage]:
        rows = await self.db.fetchall("SELECT * FROM messages WHERE user_key = ? ORDER BY id", (user_key,))
        return [_row(row) for row in rows]

    async def users(self) -> list[str]:
        rows = await self.db.fetchall(
            "SELECT user_key FROM chats UNION SELECT DISTINCT user_key FROM messages ORDER BY 1")
        return [row["user_key"] for row in rows]


def _title(fact: str) -> str:
    flat = " ".join(fact.split())
    return flat if len(flat) <= 60 else flat[:59] + "…"


async def open_memory(settings: Settings, db: Database, clock: Clock, model: ModelClient | None) -> MemoryService:
    """The memory on this database with the configured embedder, started (adopts the embedder)."""
    embedder = await build_embedder(settings.memory, settings.llm)
    service = MemoryService(settings, db, clock, embedder, model)
    await service.start()
    return service


__all__ = ["MemoryService", "open_memory"]
