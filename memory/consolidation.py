"""One consolidation pass: unprocessed messages -> cards (B), profile (C), timeline (D).

The model is asked once (one corrective retry); its answer is validated, then everything
is written and the messages are marked processed in one transaction. Invalid output or
a failure anywhere writes nothing and leaves the messages unprocessed for the next pass.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.core.tokens import count_text
from bot.llm import ModelClient
from memory.cards import CardDraft, CardStore
from memory.db import Database, Transaction
from memory.embeddings import Embedder
from memory.messages import StoredMessage, _row
from memory.modelio import InvalidOutput, ask_json, schema_hint
from memory.profile import ProfileOutcome, ProfileSection, ProfileStore
from memory.schemas import ConsolidationOut
from memory.timeline import FactDraft, TimelineStore

log = logging.getLogger(__name__)


# A failed pass (the model unreachable or its answer unusable) is retried after this, doubling.
FIRST_BACKOFF = timedelta(minutes=5)
MAX_BACKOFF = timedelta(hours=6)


class PassOutcome(StrEnum):
    WRITTEN = "written"
    NOTHING_TO_DO = "nothing_to_do"
    INVALID_OUTPUT = "invalid_output"  # skipped: nothing written, messages stay unprocessed


@dataclass(frozen=True)
class PassResult:
    outcome: PassOutcome
    messages: int = 0
    cards: tuple[int, ...] = ()
    facts_added: int = 0
    facts_ended: int = 0
    profile: ProfileOutcome | None = None
    dropped_sections: tuple[str, ...] = ()


INSTRUCTIONS = """You maintain the long-term memory of a personal assistant for one user.
Read the new messages and answer with ONE JSON object, nothing else:
{"cards": [...], "profile": {...} or null, "timeline": [...]}
- cards: summary cards of what was talked about, one per topic or episode. Each has
  title, synthesis (2-5 sentences, concrete: names, places, numbers), topics (short
  keywords), facts (atomic statements about the user's life), decisions (what was decided
  or promised), message_ids (the ids of the messages it summarises; only ids listed below).
  Small talk with nothing worth remembering needs no card.
- profile: only sections that change, each rewritten whole as a list of short lines.
  Allowed sections: SECTIONS. Keep the whole profile short.
- timeline: dated facts about the user's life (events, changes, achievements), each with
  message_id (the message it comes from; its date is the fact's date), category (one of
  CATEGORIES), fact (one sentence), and slot when the fact replaces an earlier state
  (e.g. home_city, employer, partner, car); reuse the slot names of the current facts.
Never invent dates: the message ids carry them. Write in the language of the messages.
JSON schema: SCHEMA"""


class Consolidator:
    def __init__(self, db: Database, model: ModelClient, embedder: Embedder, cards: CardStore,
                 profile: ProfileStore, timeline: TimelineStore, clock: Clock, zone: ZoneInfo, *,
                 token_threshold: int, idle: timedelta, max_messages: int) -> None:
        self._db = db
        self._model = model
        self._embedder = embedder
        self._cards = cards
        self._profile = profile
        self._timeline = timeline
        self._clock = clock
        self._zone = zone
        self.token_threshold = token_threshold
        self.idle = idle
        self.max_messages = max_messages

    async def pending(self, user_key: str, limit: int | None = None) -> list[StoredMessage]:
        rows = await self._db.fetchall(
            "SELECT * FROM messages WHERE user_key = ? AND processed = 0 AND oversized = 0 ORDER BY id LIMIT ?",
            (user_key, limit if limit is not None else -1),
        )
        return [_row(row) for row in rows]

    async def due(self, user_key: str, *, idle_check: bool) -> bool:
        """Enough unprocessed text, or (for the periodic check) a conversation gone quiet;
        never while backing off after failed passes (a model that answers garbage would
        otherwise be asked again, with the whole backlog, after every turn)."""
        if await self.backing_off(user_key):
            return False
        pending = await self.pending(user_key, self.max_messages)
        if not pending:
            return False
        if sum(count_text(message.content) for message in pending) >= self.token_threshold:
            return True
        if len(pending) >= self.max_messages:
            return True
        return idle_check and self._clock.now() - pending[-1].created_at >= self.idle

    async def backing_off(self, user_key: str) -> bool:
        """After k failed passes in a row, wait FIRST_BACKOFF x 2^(k-1) (at most MAX_BACKOFF)."""
        rows = await self._db.fetchall(
            "SELECT at, outcome FROM memory_passes WHERE user_key = ? ORDER BY id DESC LIMIT 12", (user_key,))
        failures = 0
        for row in rows:
            if row["outcome"] != PassOutcome.INVALID_OUTPUT.value:
                break
            failures += 1
        if not failures:
            return False
        wait = min(FIRST_BACKOFF * 2 ** (failures - 1), MAX_BACKOFF)
        return self._clock.now() - datetime.fromisoformat(rows[0]["at"]) < wait

    async def users_with_pending(self) -> list[str]:
        rows = await self._db.fetchall(
            "SELECT DISTINCT user_key FROM messages WHERE processed = 0 AND oversized = 0 ORDER BY user_key")
        return [row["user_key"] for row in rows]

    async def run(self, user_key: str) -> PassResult:
        batch = await self.pending(user_key, self.max_messages)
        if not batch:
            return PassResult(PassOutcome.NOTHING_TO_DO)
        by_id = {message.id: message for message in batch}
        answer = await ask_json(self._model, await self._prompt(user_key, batch), ConsolidationOut,
                                user_key=user_key, check=lambda out: _check_ids(out, by_id))
        if answer is None:
            await self._record(user_key, PassOutcome.INVALID_OUTPUT, len(batch))
            return PassResult(PassOutcome.INVALID_OUTPUT, len(batch))
        drafts = [self._draft(card.title, card.synthesis, card.topics, card.facts, card.decisions,
                              [by_id[i] for i in card.message_ids]) for card in answer.cards]
        vectors = await self._embedder.embed([draft.body for draft in drafts], is_query=False)
        now = self._clock.now()
        async with self._db.transaction() as tx:
            card_ids = tuple([await self._cards.insert(tx, user_key, draft, vector, now)
                              for draft, vector in zip(drafts, vectors, strict=True)])
            profile_result = None
            if answer.profile:
                profile_result = await self._profile.rewrite(tx, user_key, answer.profile, now)
            added = ended = 0
            for item in answer.timeline:
                source = by_id[item.message_id]
                result = await self._timeline.add(tx, user_key, FactDraft(
                    day=source.created_at.astimezone(self._zone).date(), category=item.category,
                    fact=item.fact, slot=item.slot, source_message_id=source.id), now)
                added += result.outcome == "added"
                ended += len(result.ended)
            await mark_processed(tx, user_key, list(by_id))
            await tx.execute(
                "INSERT INTO memory_passes(user_key, at, outcome, messages, detail) VALUES (?,?,?,?,?)",
                (user_key, now.isoformat(), PassOutcome.WRITTEN.value, len(batch),
                 json.dumps({"cards": len(card_ids), "facts": added, "ended": ended})),
            )
        return PassResult(
            PassOutcome.WRITTEN, len(batch), card_ids, added, ended,
            profile_result.outcome if profile_result else None,
            profile_result.dropped_sections if profile_result else (),
        )

    def _draft(self, title: str, synthesis: str, topics: list[str], facts: list[str], decisions: list[str],
               sources: list[StoredMessage]) -> CardDraft:
        started = min(message.created_at for message in sources)
        return CardDraft(
            day=started.astimezone(self._zone).date(), started_at=started,
            ended_at=max(message.created_at for message in sources), title=title, synthesis=synthesis,
            topics=tuple(topics), facts=tuple(facts), decisions=tuple(decisions),
            source_ids=tuple(sorted({message.id for message in sources})),
        )

    async def _prompt(self, user_key: str, batch: list[StoredMessage]) -> list[dict[str, str]]:
        profile = await self._profile.get(user_key)
        current = await self._timeline.current(user_key)
        system = (INSTRUCTIONS
                  .replace("SECTIONS", ", ".join(section.value for section in ProfileSection))
                  .replace("CATEGORIES", ", ".join(_categories()))
                  .replace("SCHEMA", schema_hint(ConsolidationOut)))
        lines = [f"[{m.id}] {m.created_at.astimezone(self._zone).strftime('%a %Y-%m-%d %H:%M')} {m.role}: "
                 f"{m.content}" for m in batch]
        context = [
            "Current profile:\n" + (profile.render() or "(empty)"),
            "Current facts with a slot:\n" + ("\n".join(f"{f.slot}: {f.fact} (since {f.day})" for f in current)
                                              or "(none)"),
            "New messages:\n" + "\n".join(lines),
        ]
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(context)}]

    async def _record(self, user_key: str, outcome: PassOutcome, count: int) -> None:
        await self._db.execute(
            "INSERT INTO memory_passes(user_key, at, outcome, messages) VALUES (?,?,?,?)",
            (user_key, self._clock.now().isoformat(), outcome.value, count),
        )


def _categories() -> list[str]:
    from memory.timeline import Category

    return [category.value for category in Category]


def _check_ids(answer: ConsolidationOut, batch: dict[int, StoredMessage]) -> None:
    cited = [i for card in answer.cards for i in card.message_ids] + [f.message_id for f in answer.timeline]
    unknown = sorted({i for i in cited if i not in batch})
    if unknown:
        raise InvalidOutput(f"message ids {unknown} are not among the new messages")


async def mark_processed(tx: Transaction, user_key: str, message_ids: list[int]) -> None:
    if message_ids:
        marks = ",".join("?" * len(message_ids))
        await tx.execute(f"UPDATE messages SET processed = 1 WHERE +user_key = ? AND id IN ({marks})",
                         (user_key, *message_ids))
