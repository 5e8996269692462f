"""Layer E: at most one diary entry per day, written at night in the first person.

The writer reads that day's timeline facts and messages and the previous entry (so it
does not repeat itself). "Nothing worth writing" is a valid outcome and is recorded too,
so the day is not retried; a day that already has an outcome is never rewritten.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.llm import ModelClient
from memory.db import Database, Transaction
from memory.messages import _row
from memory.modelio import ask_json, schema_hint
from memory.schemas import DiaryOut, Mood
from memory.text import fts_query, owner_token
from memory.timeline import Fact, TimelineStore


class DiaryStatus(StrEnum):
    WRITTEN = "written"
    NOTHING = "nothing"


class DiaryOutcome(StrEnum):
    WRITTEN = "written"
    NOTHING = "nothing"            # recorded: nothing worth writing
    ALREADY_DONE = "already_done"  # the day already has an outcome
    FAILED = "failed"              # model failed or invalid twice: nothing recorded, may retry


@dataclass(frozen=True)
class DiaryEntry:
    day: date
    status: DiaryStatus
    narrative: str = ""
    achievements: tuple[str, ...] = ()
    difficulties: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    mood: Mood | None = None

    def render(self) -> str:
        if self.status is DiaryStatus.NOTHING:
            return f"📔 {self.day.isoformat()}: nothing worth writing."
        parts = [f"📔 *{self.day.strftime('%A %Y-%m-%d')}*", "", self.narrative]
        if self.achievements:
            parts += ["", "*Achievements*", *[f"- {item}" for item in self.achievements]]
        if self.difficulties:
            parts += ["", "*Difficulties*", *[f"- {item}" for item in self.difficulties]]
        footer = []
        if self.mood:
            footer.append(f"mood: {self.mood.value}")
        if self.tags:
            footer.append(" ".join(f"#{tag.replace(' ', '_')}" for tag in self.tags))
        if footer:
            parts += ["", " · ".join(footer)]
        return "\n".join(parts)

    @property
    def body(self) -> str:
        return " ".join([self.narrative, *self.achievements, *self.difficulties, *self.tags])


@dataclass(frozen=True)
class DiaryResult:
    outcome: DiaryOutcome
    entry: DiaryEntry | None = None


INSTRUCTIONS = """You keep the user's personal diary. Write tonight's entry for DAY in the FIRST
PERSON, as the user ("Today I..."), in the language of their messages, from the day's facts and
messages below. Do not repeat what the previous entry already said unless something changed.
Answer with ONE JSON object, nothing else:
{"write": true, "narrative": "...", "achievements": [...], "difficulties": [...], "tags": [...],
 "mood": "great|good|mixed|low|bad"}
If the day holds nothing worth writing (no real events, only small talk), answer {"write": false}.
Only use what the facts and messages say; invent nothing. JSON schema: SCHEMA"""


class DiaryStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_key: str, day: date) -> DiaryEntry | None:
        row = await self._db.fetchone(
            "SELECT * FROM memory_diary WHERE user_key = ? AND day = ?", (user_key, day.isoformat()))
        return _entry(row) if row else None

    async def previous_written(self, user_key: str, before: date) -> DiaryEntry | None:
        row = await self._db.fetchone(
            "SELECT * FROM memory_diary WHERE user_key = ? AND day < ? AND status = 'written'"
            " ORDER BY day DESC LIMIT 1", (user_key, before.isoformat()))
        return _entry(row) if row else None

    async def between(self, user_key: str, start: date, end: date) -> list[DiaryEntry]:
        rows = await self._db.fetchall(
            "SELECT * FROM memory_diary WHERE user_key = ? AND day BETWEEN ? AND ? ORDER BY day",
            (user_key, start.isoformat(), end.isoformat()))
        return [_entry(row) for row in rows]

    async def for_user(self, user_key: str) -> list[DiaryEntry]:
        return await self.between(user_key, date.min, date.max)

    async def search(self, user_key: str, query: str, limit: int = 10) -> list[DiaryEntry]:
        match = fts_query(query, user_key, "body")
        if match is None:
            return []
        rows = await self._db.fetchall(
            "SELECT d.* FROM (SELECT day, bm25(memory_diary_fts, 1.0, 0.0) AS score FROM memory_diary_fts"
            " WHERE memory_diary_fts MATCH ? ORDER BY score LIMIT ?) f"
            " CROSS JOIN memory_diary d ON d.day = f.day AND d.user_key = ? ORDER BY f.score",
            (match, limit, user_key))
        return [_entry(row) for row in rows]

    async def record(self, tx: Transaction, user_key: str, entry: DiaryEntry, at: datetime) -> bool:
        """Store the day's outcome; False if the day already had one (never overwritten)."""
        inserted = await tx.rowcount(
            "INSERT OR IGNORE INTO memory_diary(user_key, day, status, narrative, achievements, difficulties,"
            " tags, mood, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (user_key, entry.day.isoformat(), entry.status.value, entry.narrative,
             json.dumps(list(entry.achievements), ensure_ascii=False),
             json.dumps(list(entry.difficulties), ensure_ascii=False),
             json.dumps(list(entry.tags), ensure_ascii=False),
             entry.mood.value if entry.mood else None, at.isoformat()))
        if inserted and entry.status is DiaryStatus.WRITTEN:
            await tx.execute(
                "INSERT INTO memory_diary_fts(body, owner, day) VALUES (?, ?, ?)",
                (entry.body, owner_token(user_key), entry.day.isoformat()))
        return bool(inserted)

    async def delete(self, tx: Transaction, user_key: str, day: date) -> bool:
        await tx.execute("DELETE FROM memory_diary_fts WHERE owner = ? AND day = ?",
                         (owner_token(user_key), day.isoformat()))
        return bool(await tx.rowcount("DELETE FROM memory_diary WHERE user_key = ? AND day = ?",
                                      (user_key, day.isoformat())))


class DiaryWriter:
    def __init__(self, db: Database, model: ModelClient, store: DiaryStore, timeline: TimelineStore,
                 clock: Clock, zone: ZoneInfo) -> None:
        self._db = db
        self._model = model
        self._store = store
        self._timeline = timeline
        self._clock = clock
        self._zone = zone

    async def write(self, user_key: str, day: date) -> DiaryResult:
        if await self._store.get(user_key, day) is not None:
            return DiaryResult(DiaryOutcome.ALREADY_DONE)
        facts = await self._timeline.on_day(user_key, day)
        messages = await self._messages_of(user_key, day)
        if not facts and not messages:
            entry = DiaryEntry(day, DiaryStatus.NOTHING)
        else:
            previous = await self._store.previous_written(user_key, day)
            answer = await ask_json(self._model, self._prompt(day, facts, messages, previous), DiaryOut,
                                    user_key=user_key)
            if answer is None:
                return DiaryResult(DiaryOutcome.FAILED)
            entry = (DiaryEntry(day, DiaryStatus.WRITTEN, answer.narrative, tuple(answer.achievements),
                                tuple(answer.difficulties), tuple(answer.tags), answer.mood)
                     if answer.write else DiaryEntry(day, DiaryStatus.NOTHING))
        async with self._db.transaction() as tx:
            if not await self._store.record(tx, user_key, entry, self._clock.now()):
                return DiaryResult(DiaryOutcome.ALREADY_DONE)
        outcome = DiaryOutcome.WRITTEN if entry.status is DiaryStatus.WRITTEN else DiaryOutcome.NOTHING
        return DiaryResult(outcome, entry)

    async def _messages_of(self, user_key: str, day: date) -> list[str]:
        start = datetime.combine(day, time(0), self._zone)
        end = datetime.combine(day + timedelta(days=1), time(0), self._zone)
        rows = await self._db.fetchall(
            "SELECT * FROM messages WHERE user_key = ? AND oversized = 0 AND created_at >= ? AND created_at < ?"
            " ORDER BY id", (user_key, start.astimezone(UTC).isoformat(), end.astimezone(UTC).isoformat()))
        found = []
        for row in rows:
            message = _row(row)
            if start <= message.created_at < end:
                local = message.created_at.astimezone(self._zone).strftime("%H:%M")
                found.append(f"{local} {message.role}: {message.content}")
        return found

    def _prompt(self, day: date, facts: Sequence[Fact], messages: list[str],
                previous: DiaryEntry | None) -> list[dict[str, str]]:
        system = INSTRUCTIONS.replace("DAY", day.strftime("%A %Y-%m-%d")).replace("SCHEMA", schema_hint(DiaryOut))
        fact_lines = "\n".join(f"- {f.category.value}: {f.fact}" for f in facts)
        parts = [
            "Previous entry" + (f" ({previous.day.isoformat()}):\n{previous.narrative}" if previous else ": none"),
            "Facts of the day:\n" + (fact_lines or "(none)"),
            "Messages of the day:\n" + ("\n".join(messages[-200:]) or "(none)"),
        ]
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def _entry(row: Any) -> DiaryEntry:
    get = row.__getitem__  # type: ignore[attr-defined]
    mood = get("mood")
    return DiaryEntry(
        day=date.fromisoformat(get("day")),
        status=DiaryStatus(get("status")),
        narrative=get("narrative"),
        achievements=tuple(json.loads(get("achievements"))),
        difficulties=tuple(json.loads(get("difficulties"))),
        tags=tuple(json.loads(get("tags"))),
        mood=Mood(mood) if mood else None,
    )
