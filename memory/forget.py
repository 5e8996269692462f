"""Forget, selectively and verifiably.

A plan lists what will go (shown in the approval): cards with their source messages
(the echo), facts with theirs, profile rules, diary days, photos and files the user sent
(with the message they came with), or everything matching a topic (a file's read text
too). Execution deletes rows, FTS entries and vector bytes in one transaction and
redacts the text from turn records and approvals; then FTS indexes are optimised, the
WAL is checkpointed (TRUNCATE) until complete, and the database and WAL files are
scanned for the forgotten text: the report says "verified gone" or what remains.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from bot.clock import Clock
from memory.attachments import AttachmentStore, StoredAttachment
from memory.cards import Card, CardStore
from memory.db import Database, Transaction
from memory.diary import DiaryEntry, DiaryStatus, DiaryStore
from memory.embeddings import Embedder
from memory.messages import StoredMessage, _row, own_words
from memory.profile import ProfileSection, ProfileStore
from memory.text import normalise_key
from memory.timeline import Fact, TimelineStore

log = logging.getLogger(__name__)

FTS_TABLES = ("memory_cards_fts", "memory_timeline_fts", "memory_diary_fts")
REDACTED = "[forgotten]"


class ForgetKind(StrEnum):
    CARD = "card"
    FACT = "fact"
    RULE = "rule"
    DIARY = "diary"
    TOPIC = "topic"
    FILE = "file"


@dataclass(frozen=True)
class ForgetTarget:
    kind: ForgetKind
    card_id: int | None = None
    fact_id: int | None = None
    section: ProfileSection | None = None
    rule_index: int | None = None
    day: date | None = None
    topic: str | None = None
    attachment_id: int | None = None


@dataclass(frozen=True)
class ProfileRule:
    section: ProfileSection
    index: int
    text: str


@dataclass(frozen=True)
class ForgetPlan:
    user_key: str
    target: ForgetTarget
    cards: tuple[Card, ...] = ()
    facts: tuple[Fact, ...] = ()
    rules: tuple[ProfileRule, ...] = ()
    diary: tuple[DiaryEntry, ...] = ()
    messages: tuple[StoredMessage, ...] = ()
    attachments: tuple[StoredAttachment, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.cards or self.facts or self.rules or self.diary or self.messages or self.attachments)

    def describe(self, limit: int = 8) -> str:
        """What will go, item by item (what an approval shows)."""
        if self.empty:
            return "Nothing in memory matches, so nothing would be forgotten."
        lines = [f"Forget {_what(self.target)} — this will permanently delete:"]
        lines += _listing("summary card", [f"#{c.id} {c.day} “{c.title}”" for c in self.cards], limit)
        lines += _listing("timeline fact", [f"#{f.id} {f.day} {_clip(f.fact)}" for f in self.facts], limit)
        lines += _listing("profile rule", [f"{r.section.heading} #{r.index + 1}: {_clip(r.text)}" for r in self.rules],
                          limit)
        lines += _listing("diary day", [e.day.isoformat() for e in self.diary], limit)
        lines += _listing("message", [f"{m.created_at.date()} {m.role}: {_clip(m.content, 60)}"
                                      for m in self.messages], limit)
        lines += _listing("file", [f"#{a.id} {a.created_at.date()} {a.kind.value} “{_clip(a.filename, 40)}”"
                                   for a in self.attachments], limit)
        lines.append("Their search-index entries and vectors go too; afterwards the file is checked.")
        return "\n".join(lines)

    def needles(self) -> list[str]:
        """Text that must not be found in the files afterwards."""
        found: list[str] = []
        if self.target.topic:
            found.append(self.target.topic)
        for card in self.cards:
            found += [card.title, card.synthesis, *card.facts, *card.decisions]
        found += [fact.fact for fact in self.facts]
        found += [rule.text for rule in self.rules]
        found += [entry.narrative for entry in self.diary if entry.narrative]
        # The user's words: the note the software added names a file in words every such note
        # shares, which other messages keep (the row itself goes whole).
        found += [own_words(message.content) for message in self.messages]
        # A file's read text; not its name, which is often generic ("photo.jpg") and found elsewhere.
        found += [attachment.text for attachment in self.attachments if attachment.text]
        return [text for text in dict.fromkeys(found) if len(text.strip()) >= 4]


class Verification(StrEnum):
    VERIFIED_GONE = "verified gone"
    REMAINS = "remains"


@dataclass(frozen=True)
class Remnant:
    text: str
    file: str


@dataclass(frozen=True)
class ForgetReport:
    plan: ForgetPlan
    verification: Verification
    remnants: tuple[Remnant, ...] = field(default_factory=tuple)
    checkpoint_complete: bool = True

    def render(self) -> str:
        if self.plan.empty:
            return "Nothing matched, nothing was forgotten."
        counts = [f"{len(self.plan.cards)} cards", f"{len(self.plan.facts)} facts",
                  f"{len(self.plan.rules)} profile rules", f"{len(self.plan.diary)} diary days",
                  f"{len(self.plan.messages)} messages", f"{len(self.plan.attachments)} files"]
        head = f"Forgotten: {', '.join(counts)}."
        if self.verification is Verification.VERIFIED_GONE:
            return f"{head} Verified gone: the database and WAL files no longer contain that text."
        places = "; ".join(f"“{_clip(r.text, 40)}” in {r.file}" for r in self.remnants[:5])
        return f"{head} NOT verified: text remains ({places})."


class Forgetter:
    def __init__(self, db: Database, cards: CardStore, timeline: TimelineStore, profile: ProfileStore,
                 diary: DiaryStore, embedder: Embedder, clock: Clock, attachments: AttachmentStore) -> None:
        self._db = db
        self._attachments = attachments
        self._cards = cards
        self._timeline = timeline
        self._profile = profile
        self._diary = diary
        self._embedder = embedder
        self._clock = clock

    async def plan(self, user_key: str, target: ForgetTarget) -> ForgetPlan:
        cards: list[Card] = []
        facts: list[Fact] = []
        rules: list[ProfileRule] = []
        diary: list[DiaryEntry] = []
        attachments: list[StoredAttachment] = []
        message_ids: set[int] = set()
        if target.kind is ForgetKind.CARD and target.card_id is not None:
            card = await self._cards.get(user_key, target.card_id)
            cards += [card] if card else []
        elif target.kind is ForgetKind.FACT and target.fact_id is not None:
            fact = await self._timeline.get(user_key, target.fact_id)
            facts += [fact] if fact else []
        elif target.kind is ForgetKind.RULE and target.section is not None and target.rule_index is not None:
            lines = (await self._profile.get(user_key)).sections.get(target.section, ())
            if 0 <= target.rule_index < len(lines):
                rules.append(ProfileRule(target.section, target.rule_index, lines[target.rule_index]))
        elif target.kind is ForgetKind.DIARY and target.day is not None:
            entry = await self._diary.get(user_key, target.day)
            diary += [entry] if entry else []
        elif target.kind is ForgetKind.TOPIC and target.topic and normalise_key(target.topic):
            needle = normalise_key(target.topic)
            cards = [c for c in await self._cards.for_user(user_key) if needle in normalise_key(c.body)]
            facts = [f for f in await self._timeline.for_user(user_key) if needle in normalise_key(f.fact)]
            profile = await self._profile.get(user_key)
            rules = [ProfileRule(section, i, line) for section, lines in profile.sections.items()
                     for i, line in enumerate(lines) if needle in normalise_key(line)]
            diary = [e for e in await self._diary.for_user(user_key)
                     if e.status is DiaryStatus.WRITTEN and needle in normalise_key(e.body)]
            rows = await self._db.fetchall("SELECT * FROM messages WHERE user_key = ?", (user_key,))
            message_ids |= {row["id"] for row in rows if needle in normalise_key(row["content"])}
            attachments = [a for a in await self._attachments.for_user(user_key)
                           if needle in normalise_key(f"{a.filename} {a.text or ''}")]
        elif target.kind is ForgetKind.FILE and target.attachment_id is not None:
            attachment = await self._attachments.get(user_key, target.attachment_id)
            attachments += [attachment] if attachment else []
        # The message a file came with (its caption, the note naming it) goes with it, and so
        # does what was made from that message.
        message_ids |= await self._attachments.message_ids(user_key, [a.id for a in attachments])
        for card in cards:
            message_ids |= set(card.source_ids)
        message_ids |= {f.source_message_id for f in facts if f.source_message_id is not None}
        if message_ids and target.kind in (ForgetKind.CARD, ForgetKind.FACT, ForgetKind.TOPIC, ForgetKind.FILE):
            # The echo: whatever else was made from the same messages repeats their words.
            known_cards = {c.id for c in cards}
            cards += [c for c in await self._cards.for_user(user_key)
                      if c.id not in known_cards and message_ids & set(c.source_ids)]
            known_facts = {f.id for f in facts}
            facts += [f for f in await self._timeline.for_user(user_key)
                      if f.id not in known_facts and f.source_message_id in message_ids]
        messages = await self._messages(user_key, sorted(message_ids))
        return ForgetPlan(user_key, target, tuple(cards), tuple(facts), tuple(rules), tuple(diary), tuple(messages),
                          tuple(attachments))

    async def execute(self, plan: ForgetPlan) -> ForgetReport:
        if plan.empty:
            return ForgetReport(plan, Verification.VERIFIED_GONE)
        user_key = plan.user_key
        now = self._clock.now()
        needles = plan.needles()
        async with self._db.transaction() as tx:
            await self._cards.delete(tx, [card.id for card in plan.cards])
            await self._timeline.delete(tx, user_key, [fact.id for fact in plan.facts])
            for rule in sorted(plan.rules, key=lambda r: -r.index):
                await self._remove_rule(tx, user_key, rule, now)
            for entry in plan.diary:
                await self._diary.delete(tx, user_key, entry.day)
            await self._delete_messages(tx, user_key, [m.id for m in plan.messages])
            await self._attachments.delete(tx, user_key, [a.id for a in plan.attachments])
            await self._redact(tx, user_key, needles)
        self._embedder.forget(needles)
        complete = await self.scrub()
        remnants = self.scan(needles)
        verification = Verification.REMAINS if remnants else Verification.VERIFIED_GONE
        log.info("forget for %s: %s", user_key, verification.value)
        return ForgetReport(plan, verification, tuple(remnants), complete)

    async def scrub(self) -> bool:
        """Optimise FTS indexes and checkpoint the WAL until it is fully written back and truncated."""
        for table in FTS_TABLES:
            await self._db.raw(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        for _ in range(20):
            row = await self._db.fetchone("PRAGMA wal_checkpoint(TRUNCATE)")
            if row is None or (row[0] == 0 and row[1] in (0, row[2])):
                return True
            await self._clock.sleep(0.05)
        return False

    def scan(self, needles: Sequence[str]) -> list[Remnant]:
        found: list[Remnant] = []
        main = Path(self._db.path)
        for path in (main, main.with_name(main.name + "-wal"), main.with_name(main.name + "-journal")):
            if not path.exists():
                continue
            data = path.read_bytes()
            lowered = data.lower()
            for needle in needles:
                if any(_present(piece, data, lowered) for piece in _pieces(needle)):
                    found.append(Remnant(needle, path.name))
        return found

    async def _messages(self, user_key: str, ids: list[int]) -> list[StoredMessage]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            f"SELECT * FROM messages WHERE +user_key = ? AND id IN ({marks}) ORDER BY id", (user_key, *ids))
        return [_row(row) for row in rows]

    async def _remove_rule(self, tx: Transaction, user_key: str, rule: ProfileRule, at: datetime) -> None:
        row = await tx.fetchone("SELECT lines FROM memory_profile WHERE user_key = ? AND section = ?",
                                (user_key, rule.section.value))
        if row is None:
            return
        import json

        lines = list(json.loads(row["lines"]))
        index = rule.index if rule.index < len(lines) and lines[rule.index] == rule.text else (
            lines.index(rule.text) if rule.text in lines else -1)
        if index >= 0:
            await self._profile.remove_line(tx, user_key, rule.section, index, at)

    async def _delete_messages(self, tx: Transaction, user_key: str, ids: list[int]) -> None:
        if not ids:
            return
        marks = ",".join("?" * len(ids))
        turns = await tx.fetchall(
            f"SELECT DISTINCT turn_id FROM messages WHERE +user_key = ? AND id IN ({marks}) AND turn_id IS NOT NULL",
            (user_key, *ids))
        await tx.execute(f"DELETE FROM memory_card_sources WHERE message_id IN ({marks})", ids)
        await tx.execute(
            "UPDATE memory_timeline SET source_message_id = NULL"
            f" WHERE user_key = ? AND source_message_id IN ({marks})",
            (user_key, *ids))
        await tx.execute(f"DELETE FROM messages WHERE +user_key = ? AND id IN ({marks})", (user_key, *ids))
        for row in turns:
            await tx.execute("DELETE FROM tool_calls WHERE turn_id = ?", (row["turn_id"],))
            await tx.execute("UPDATE turns SET answer = ?, route_json = NULL, verification_json = NULL"
                             " WHERE id = ? AND user_key = ?", (REDACTED, row["turn_id"], user_key))

    async def _redact(self, tx: Transaction, user_key: str, needles: Sequence[str]) -> None:
        """Turn records and approvals may quote the text (a recall result, an approval line)."""
        for needle in needles:
            for piece in _pieces(needle):
                params = (piece, piece)
                hit = "(instr({col}, ?) > 0 OR instr(lower({col}), lower(?)) > 0)"
                await tx.execute(
                    "UPDATE tool_calls SET arguments = '{}', result = ?, error = NULL WHERE turn_id IN"
                    " (SELECT id FROM turns WHERE user_key = ?) AND (" + " OR ".join(
                        hit.format(col=col) for col in ("arguments", "result", "error")) + ")",
                    (REDACTED, user_key, *params, *params, *params))
                await tx.execute("UPDATE turns SET answer = ? WHERE user_key = ? AND " + hit.format(col="answer"),
                                 (REDACTED, user_key, *params))
                await tx.execute(
                    "UPDATE approvals SET description = ?, arguments = '{}' WHERE user_key = ? AND ("
                    + hit.format(col="description") + " OR " + hit.format(col="arguments") + ")",
                    (REDACTED, user_key, *params, *params))
        await self._redact_parked(tx, user_key, needles)

    async def _redact_parked(self, tx: Transaction, user_key: str, needles: Sequence[str]) -> None:
        """A turn parked on an approval keeps its messages until it answers: they are redacted too.

        Its state is JSON (non-ASCII may be escaped), so it is read, cleaned string by string and
        written back; the turn still resumes, with the forgotten words gone.
        """
        pieces = [piece for needle in needles for piece in _pieces(needle)]
        rows = await tx.fetchall(
            "SELECT turn_id, state FROM parked_turns WHERE turn_id IN (SELECT id FROM turns WHERE user_key = ?)",
            (user_key,))
        for row in rows:
            state = json.loads(row["state"])
            cleaned = _without_pieces(state, pieces)
            if cleaned != state:
                await tx.execute("UPDATE parked_turns SET state = ? WHERE turn_id = ?",
                                 (json.dumps(cleaned, ensure_ascii=False), row["turn_id"]))


def _without_pieces(value: Any, pieces: Sequence[str]) -> Any:
    """`value` (parsed JSON) with every piece replaced by REDACTED in its strings, any case."""
    if isinstance(value, str):
        for piece in pieces:
            value = re.sub(re.escape(piece), REDACTED, value, flags=re.IGNORECASE)
        return value
    if isinstance(value, list):
        return [_without_pieces(item, pieces) for item in value]
    if isinstance(value, dict):
        return {key: _without_pieces(item, pieces) for key, item in value.items()}
    return value


def _pieces(text: str) -> list[str]:
    """Whole short texts; windows of long ones (a long text may be split across pages)."""
    text = text.strip()
    if len(text) <= 48:
        return [text]
    step = max(len(text) // 12, 24)
    return [text[i:i + 32] for i in range(0, len(text) - 31, step)]


def _present(piece: str, data: bytes, lowered: bytes) -> bool:
    encoded = piece.encode("utf-8")
    return encoded in data or encoded.lower() in lowered


def _clip(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def _listing(label: str, items: list[str], limit: int) -> list[str]:
    if not items:
        return []
    shown = [f"- {label}: {item}" for item in items[:limit]]
    if len(items) > limit:
        shown.append(f"- … and {len(items) - limit} more {label}s")
    return shown


def _what(target: ForgetTarget) -> str:
    match target.kind:
        case ForgetKind.CARD:
            return f"summary card #{target.card_id}"
        case ForgetKind.FACT:
            return f"timeline fact #{target.fact_id}"
        case ForgetKind.RULE:
            section = target.section.heading if target.section else "?"
            return f"profile rule {section} #{(target.rule_index or 0) + 1}"
        case ForgetKind.DIARY:
            return f"the diary entry of {target.day}"
        case ForgetKind.TOPIC:
            return f"everything about “{target.topic}”"
        case ForgetKind.FILE:
            return f"the photo or file #{target.attachment_id}"
    return "memory"


class TargetError(ValueError):
    """A forget request that cannot be understood; the message says the accepted forms."""


USAGE = ("card N | fact N | file N | diary YYYY-MM-DD | rule <section> N | <topic> "
         f"(sections: {', '.join(s.value for s in ProfileSection)})")


def parse_target(text: str) -> ForgetTarget:
    """`card 12`, `fact 5`, `file 3` (also `photo 3`), `diary 2026-03-01`, `rule preferences 2`
    (1-based), or a topic."""
    parts = text.strip().split()
    if not parts:
        raise TargetError(f"say what to forget: {USAGE}")
    head = parts[0].lower()
    try:
        if head == "card" and len(parts) == 2:
            return ForgetTarget(ForgetKind.CARD, card_id=int(parts[1].lstrip("#")))
        if head == "fact" and len(parts) == 2:
            return ForgetTarget(ForgetKind.FACT, fact_id=int(parts[1].lstrip("#")))
        if head in ("file", "photo", "attachment") and len(parts) == 2:
            return ForgetTarget(ForgetKind.FILE, attachment_id=int(parts[1].lstrip("#")))
        if head == "diary" and len(parts) == 2:
            return ForgetTarget(ForgetKind.DIARY, day=date.fromisoformat(parts[1]))
        if head == "rule" and len(parts) == 3:
            index = int(parts[2].lstrip("#")) - 1
            if index < 0:
                raise TargetError("rule numbers start at 1")
            return ForgetTarget(ForgetKind.RULE, section=ProfileSection(parts[1].lower()), rule_index=index)
    except ValueError as exc:
        raise TargetError(f"cannot read {text!r}: {exc}; expected {USAGE}") from None
    topic = text.strip()[len("topic"):].strip() if head == "topic" and len(parts) > 1 else text.strip()
    if len(normalise_key(topic)) < 3:
        raise TargetError("a topic needs at least three letters or digits")
    return ForgetTarget(ForgetKind.TOPIC, topic=topic)
