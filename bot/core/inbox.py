"""The durable inbox: every event that may start work is stored before the messenger is told.

An adapter acknowledges an update (Telegram's offset, Matrix's sync token) only after
`put` returned, so a crash can never lose a message the messenger considers delivered.
A voice note or file may be stored before it is downloaded, as a FileToFetch: the chat's
worker fetches it (bot/core/fetching.py), and until then the row stays unfinished.
Each chat's events are worked through in arrival order by one worker at a time: a worker
claims the chat's oldest queued row with a lease (`claimed_by`, `claimed_until`), renewed
while its turn runs, and no row of a chat is claimed while another row of that chat is
running under a live lease (see bot/core/ownership.py for who takes over after a restart).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from bot.core.events import (
    ApprovalSettled,
    AttachmentKind,
    AttachmentMessage,
    ChatKind,
    ChatRef,
    CommandMessage,
    FileKind,
    FileToFetch,
    Platform,
    TextMessage,
    VoiceMessage,
)
from memory.db import Database, Transaction
from memory.messages import chat_key
from memory.text import valid_text

# How long a claim holds unless renewed (the heartbeat renews it while the turn runs).
LEASE = timedelta(minutes=5)
# Telegram keeps an unacknowledged update for 24 h and may reuse ids after a quiet week.
DEDUPE_WINDOW = timedelta(days=2)

QueuedEvent = TextMessage | VoiceMessage | CommandMessage | AttachmentMessage | FileToFetch | ApprovalSettled


class InboxStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    INTERRUPTED = "interrupted"  # a restart cut it short and the user was told
    PARKED = "parked"  # its turn waits for an approval; the chat goes on meanwhile


class EventKind(StrEnum):
    TEXT = "text"
    VOICE = "voice"
    COMMAND = "command"
    ATTACHMENT = "attachment"
    APPROVAL_SETTLED = "approval_settled"
    FILE_TO_FETCH = "file_to_fetch"  # stored as text: no migration for a new kind


@dataclass(frozen=True)
class InboxItem:
    id: int
    event: QueuedEvent
    attempts: int
    message_id: int | None  # the layer-A row of the user's words, once stored
    received_at: datetime

    @property
    def chat(self) -> ChatRef:
        return self.event.chat

    @property
    def said(self) -> str:
        """What the user said, as far as text goes (for notices about this event)."""
        if isinstance(self.event, TextMessage):
            return self.event.text
        if isinstance(self.event, CommandMessage):
            return f"/{self.event.name} {self.event.argument}".strip()
        if isinstance(self.event, AttachmentMessage) or (
                isinstance(self.event, FileToFetch) and self.event.kind is not FileKind.VOICE):
            return f"📎 {self.event.filename} {self.event.caption}".strip()
        if isinstance(self.event, ApprovalSettled):
            return ""
        return "🎙️"


def _encode(event: QueuedEvent) -> tuple[EventKind, dict[str, Any], bytes | None]:
    if isinstance(event, TextMessage):
        return EventKind.TEXT, {"text": event.text, "message_id": event.message_id}, None
    if isinstance(event, VoiceMessage):
        return EventKind.VOICE, {"filename": event.filename, "message_id": event.message_id,
                                 "forwarded": event.forwarded}, event.audio
    if isinstance(event, AttachmentMessage):
        return EventKind.ATTACHMENT, {
            "kind": event.kind.value, "filename": event.filename, "mime_type": event.mime_type,
            "caption": event.caption, "message_id": event.message_id, "forwarded": event.forwarded,
        }, event.data
    if isinstance(event, FileToFetch):
        return EventKind.FILE_TO_FETCH, {
            "kind": event.kind.value, "ref": event.ref, "filename": event.filename, "mime_type": event.mime_type,
            "caption": event.caption, "message_id": event.message_id, "declared_size": event.declared_size,
            "forwarded": event.forwarded,
        }, None
    if isinstance(event, ApprovalSettled):
        return EventKind.APPROVAL_SETTLED, {"request_id": event.request_id}, None
    return EventKind.COMMAND, {"name": event.name, "argument": event.argument}, None


def _decode(row: Any) -> QueuedEvent:
    chat = ChatRef(Platform(row["platform"]), row["chat_id"], row["user_id"], ChatKind(row["chat_kind"]))
    payload = json.loads(row["payload"])
    kind = EventKind(row["kind"])
    if kind is EventKind.TEXT:
        return TextMessage(chat, payload["text"], payload.get("message_id"))
    if kind is EventKind.VOICE:
        return VoiceMessage(chat, bytes(row["data"] or b""), payload["filename"], payload.get("message_id"),
                            bool(payload.get("forwarded", False)))
    if kind is EventKind.ATTACHMENT:
        return AttachmentMessage(chat, AttachmentKind(payload["kind"]), bytes(row["data"] or b""),
                                 payload["filename"], payload["mime_type"], payload.get("caption", ""),
                                 payload.get("message_id"), bool(payload.get("forwarded", False)))
    if kind is EventKind.FILE_TO_FETCH:
        return FileToFetch(chat, FileKind(payload["kind"]), payload["ref"], payload["filename"],
                           payload["mime_type"], payload.get("caption", ""), payload.get("message_id"),
                           payload.get("declared_size"), bool(payload.get("forwarded", False)))
    if kind is EventKind.APPROVAL_SETTLED:
        return ApprovalSettled(chat, payload["request_id"])
    return CommandMessage(chat, payload["name"], payload.get("argument", ""))


def _item(row: Any) -> InboxItem:
    return InboxItem(id=row["id"], event=_decode(row), attempts=row["attempts"],
                     message_id=row["message_id"], received_at=datetime.fromisoformat(row["received_at"]))


class Inbox:
    def __init__(self, db: Database, worker: str) -> None:
        self._db = db
        self.worker = worker

    async def put(self, event: QueuedEvent, at: datetime, source: str | None = None) -> int | None:
        """Store an event; None when `source` was already stored (the messenger redelivered it)."""
        [item_id] = await self.put_many([(event, source)], at)
        return item_id

    async def put_many(self, events: Sequence[tuple[QueuedEvent, str | None]], at: datetime) -> list[int | None]:
        """Store events in order, all in one durable commit; per event its id, or None when
        its `source` was already stored. One flush to disk for a whole burst (a getUpdates batch)."""
        ids: list[int | None] = []
        # On disk before the messenger hears they arrived, even if the machine loses power.
        async with self._db.transaction(durable=True) as tx:
            for event, source in events:
                ids.append(await self._insert(tx, event, at, source))
        return ids

    async def _insert(self, tx: Transaction, event: QueuedEvent, at: datetime, source: str | None) -> int | None:
        kind, payload, data = _encode(event)
        chat = event.chat
        # One statement: the redelivery check and the insert (a redelivered source inserts nothing).
        rows = await tx.fetchall(
            "INSERT INTO chat_inbox(chat_key, platform, chat_id, user_id, chat_kind, kind, payload, data,"
            " source, received_at) SELECT ?,?,?,?,?,?,?,?,?,? WHERE ? IS NULL OR NOT EXISTS"
            " (SELECT 1 FROM chat_inbox WHERE source = ? AND received_at >= ?) RETURNING id",
            (chat_key(chat), chat.platform.value, chat.chat_id, chat.user_id, chat.kind.value, kind.value,
             valid_text(json.dumps(payload, ensure_ascii=False)), data, source, at.isoformat(),
             source, source, (at - DEDUPE_WINDOW).isoformat()),
        )
        return int(rows[0]["id"]) if rows else None

    async def claim_next(self, key: str, now: datetime) -> InboxItem | None:
        """The chat's oldest queued event, claimed for this worker; None if none or busy."""
        # One statement, so atomic without a transaction: nothing is claimed while another
        # worker's claim on a row of this chat is alive.
        claim = (
            "UPDATE chat_inbox SET status = ?, claimed_by = ?, claimed_until = ?, attempts = attempts + 1"
            " WHERE id = (SELECT id FROM chat_inbox WHERE chat_key = ? AND status = ? ORDER BY id LIMIT 1)"
            " AND NOT EXISTS (SELECT 1 FROM chat_inbox WHERE chat_key = ? AND status = ? AND claimed_by != ?"
            " AND claimed_until > ?) RETURNING *"
        )
        params = (InboxStatus.RUNNING.value, self.worker, (now + LEASE).isoformat(), key, InboxStatus.QUEUED.value,
                  key, InboxStatus.RUNNING.value, self.worker, now.isoformat())
        rows = await self._db.fetchall(claim, params)
        if not rows:
            return None
        row = rows[0]
        if row["kind"] == EventKind.COMMAND.value:
            # A command's argument may be what /forget erases: no copy outlives the claim.
            # (A command cut short by a restart is reported, never run again; until this
            # runs, a restart finds the row running and reports it all the same.)
            await self._db.execute("UPDATE chat_inbox SET payload = ? WHERE id = ?",
                                   (json.dumps({"name": json.loads(row["payload"])["name"]}), row["id"]))
        return _item(row)

    async def chats_with_work(self) -> list[str]:
        rows = await self._db.fetchall(
            "SELECT DISTINCT chat_key FROM chat_inbox WHERE status = ?", (InboxStatus.QUEUED.value,)
        )
        return [row["chat_key"] for row in rows]

    async def attach_message(self, item_id: int, message_id: int, tx: Transaction) -> None:
        await tx.execute("UPDATE chat_inbox SET message_id = ? WHERE id = ?", (message_id, item_id))

    async def finish(self, item_id: int, at: datetime, tx: Transaction | None = None,
                     status: InboxStatus = InboxStatus.DONE) -> None:
        """Done: the copy of the user's words goes (layer A keeps them, where /forget reaches)."""
        await (tx or self._db).execute(
            "UPDATE chat_inbox SET status = ?, finished_at = ?, payload = '{}', data = NULL,"
            " claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status IN (?, ?, ?)",
            (status.value, at.isoformat(), item_id, InboxStatus.QUEUED.value, InboxStatus.RUNNING.value,
             InboxStatus.PARKED.value),
        )

    async def park(self, item_id: int, tx: Transaction) -> None:
        """The event's turn waits for an approval: the chat is free, the event not yet answered."""
        await tx.execute(
            "UPDATE chat_inbox SET status = ?, payload = '{}', data = NULL, claimed_by = NULL,"
            " claimed_until = NULL WHERE id = ?",
            (InboxStatus.PARKED.value, item_id),
        )

    async def renew(self, now: datetime) -> None:
        """The heartbeat: this worker's running rows keep their claim."""
        await self._db.execute(
            "UPDATE chat_inbox SET claimed_until = ? WHERE claimed_by = ? AND status = ?",
            ((now + LEASE).isoformat(), self.worker, InboxStatus.RUNNING.value),
        )

    async def running(self, previous: str | None, now: datetime) -> list[InboxItem]:
        """Rows a previous process left running (it crashed or was stopped mid-turn): those of
        `previous` (this database's last owner; None: any), and any whose lease ran out."""
        rows = await self._db.fetchall(
            "SELECT * FROM chat_inbox WHERE status = ? AND claimed_by != ?"
            " AND (? IS NULL OR claimed_by = ? OR claimed_until <= ?) ORDER BY id",
            (InboxStatus.RUNNING.value, self.worker, previous, previous, now.isoformat()),
        )
        return [_item(row) for row in rows]

    async def requeue(self, item_id: int) -> None:
        await self._db.execute(
            "UPDATE chat_inbox SET status = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ?",
            (InboxStatus.QUEUED.value, item_id),
        )

    async def status(self, item_id: int) -> InboxStatus | None:
        row = await self._db.fetchone("SELECT status FROM chat_inbox WHERE id = ?", (item_id,))
        return InboxStatus(row["status"]) if row else None
