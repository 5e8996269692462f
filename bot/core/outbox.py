"""The durable outbox: what the core says is stored first, then delivered at least once.

A row is written in the same transaction as the state it reports (the answer with the
turn's layer-A record and the inbox row it finishes; a reminder with its job), then sent
in order per chat. It is marked delivered only when the messenger accepted it; a failure
that may be temporary is retried with backoff, across restarts and outages of hours. A
send whose answer never came (a read timeout) may have arrived: it is marked unconfirmed
and not sent again, because a messenger like Telegram cannot be asked whether it did.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.core import replies
from bot.core.events import (
    ChatKind,
    ChatRef,
    MessageKind,
    OutboundMessage,
    Platform,
    Receipt,
    ReceiptOutcome,
    SentMessage,
)
from bot.core.language import detect_language
from bot.core.messenger import Messenger
from bot.errors import DeliveryError
from bot.scheduler import FIRING_JOB
from memory.db import Database, Transaction
from memory.messages import chat_key

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)  # renewed by the heartbeat while a send runs
FIRST_RETRY_SECONDS = 2.0
MAX_RETRY_SECONDS = 300.0
# A scheduled post that waited longer than this in the outbox says it is late.
LATE_AFTER = timedelta(minutes=5)
IDLE_CHECK_SECONDS = 30.0


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    UNCONFIRMED = "unconfirmed"  # the send timed out after it left: it may well have arrived
    FAILED = "failed"  # the messenger refused it for good


@dataclass(frozen=True)
class OutboxItem:
    id: int
    chat: ChatRef
    message: OutboundMessage
    job_id: str | None
    attempts: int
    created_at: datetime


def backoff_seconds(attempts: int) -> float:
    return float(min(FIRST_RETRY_SECONDS * 2 ** max(attempts - 1, 0), MAX_RETRY_SECONDS))


class Outbox:
    def __init__(self, db: Database, clock: Clock, worker: str, zone: ZoneInfo, language: str,
                 messenger: Callable[[Platform], Messenger | None]) -> None:
        self._db = db
        self._clock = clock
        self._worker = worker
        self._zone = zone
        self._language = language
        self._messenger = messenger
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._wake = asyncio.Event()

    async def put(self, chat: ChatRef, message: OutboundMessage, tx: Transaction | None = None) -> int:
        """Queue a message; a scheduled job firing now is marked queued in the same transaction."""
        if tx is None:
            async with self._db.transaction() as own:
                return await self.put(chat, message, own)
        now = self._clock.now().isoformat()
        job_id = FIRING_JOB.get()
        row_id = await tx.execute(
            "INSERT INTO outbox(chat_key, platform, chat_id, user_id, chat_kind, kind, text, suggestions,"
            " receipts, ask_location, job_id, next_attempt_at, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (chat_key(chat), chat.platform.value, chat.chat_id, chat.user_id, chat.kind.value,
             message.kind.value, message.text, json.dumps(list(message.suggestions), ensure_ascii=False),
             json.dumps([[r.outcome.value, r.summary] for r in message.receipts], ensure_ascii=False),
             int(message.ask_location), job_id, now, now),
        )
        if job_id is not None:
            await tx.execute("UPDATE scheduled_once SET status = 'queued' WHERE job_id = ? AND status = 'pending'",
                             (job_id,))
        return row_id

    async def flush(self, chat: ChatRef) -> dict[int, SentMessage]:
        """Deliver this chat's due messages in order; stops at the first that must wait."""
        key = chat_key(chat)
        sent: dict[int, SentMessage] = {}
        async with self._locks[key]:
            while True:
                item = await self._claim(key)
                if item is None:
                    return sent
                result = await self._deliver(item)
                if result is None:
                    return sent
                if isinstance(result, SentMessage):
                    sent[item.id] = result

    async def sent(self, item_id: int) -> SentMessage | None:
        """What became of one message: where it landed if it was delivered, else None."""
        row = await self._db.fetchone(
            "SELECT platform, chat_id, user_id, status, message_id FROM outbox WHERE id = ?", (item_id,))
        if row is None or row["status"] != DeliveryStatus.DELIVERED.value or row["message_id"] is None:
            return None
        return SentMessage(ChatRef(Platform(row["platform"]), row["chat_id"], row["user_id"]), row["message_id"])

    async def platform_ready(self, platform: Platform) -> None:
        """A messenger came up: what waited for it (no adapter yet) is due now, not after its backoff."""
        now = self._clock.now().isoformat()
        await self._db.execute(
            "UPDATE outbox SET next_attempt_at = ? WHERE status = ? AND platform = ? AND next_attempt_at > ?",
            (now, DeliveryStatus.PENDING.value, platform.value, now),
        )
        self._wake.set()

    def wake(self) -> None:
        """Look at the outbox now (after a restart of a messenger, or in tests)."""
        self._wake.set()

    async def run(self) -> None:
        """Retry what is due, for ever; sleeps until the next retry or a wake-up."""
        while True:
            self._wake.clear()
            try:
                for chat in await self._due_chats():
                    await self.flush(chat)
                delay = await self._next_retry_in()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("outbox: delivery round failed")
                delay = IDLE_CHECK_SECONDS
            # Either a wake-up (a new row, a messenger back) or the next retry falls due.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def renew(self, now: datetime) -> None:
        """The heartbeat: messages this worker is sending keep their claim."""
        await self._db.execute(
            "UPDATE outbox SET claimed_until = ? WHERE claimed_by = ? AND status = ?",
            ((now + LEASE).isoformat(), self._worker, DeliveryStatus.PENDING.value),
        )

    async def take_over(self, previous: str | None, now: datetime) -> int:
        """At start-up: claims `previous` (this database's last owner; None: any) left, and
        any whose lease ran out, are released, so their messages go out now."""
        return await self._db.rowcount(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE status = ?"
            " AND claimed_by IS NOT NULL AND claimed_by != ? AND (? IS NULL OR claimed_by = ? OR claimed_until <= ?)",
            (DeliveryStatus.PENDING.value, self._worker, previous, previous, now.isoformat()),
        )

    async def pending(self) -> int:
        row = await self._db.fetchone("SELECT COUNT(*) AS n FROM outbox WHERE status = ?",
                                      (DeliveryStatus.PENDING.value,))
        return int(row["n"]) if row else 0

    # -- steps ---------------------------------------------------------------------------
    async def _claim(self, key: str) -> OutboxItem | None:
        now = self._clock.now().isoformat()
        # One statement, so atomic without a transaction. The chat's oldest pending message
        # only: one waiting for a retry (or claimed by a live worker) holds back the later ones.
        rows = await self._db.fetchall(
            "UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE id = (SELECT id FROM outbox"
            " WHERE chat_key = ? AND status = ? ORDER BY id LIMIT 1) AND next_attempt_at <= ?"
            " AND (claimed_by IS NULL OR claimed_by = ? OR COALESCE(claimed_until, '') <= ?) RETURNING *",
            (self._worker, (self._clock.now() + LEASE).isoformat(), key, DeliveryStatus.PENDING.value, now,
             self._worker, now),
        )
        return _item(rows[0]) if rows else None

    async def _deliver(self, item: OutboxItem) -> SentMessage | bool | None:
        """SentMessage (or True) when settled, None when it has to wait for a retry."""
        messenger = self._messenger(item.chat.platform)
        if messenger is None:
            await self._retry_later(item, f"no adapter for {item.chat.platform.value}")
            return None
        # Row id and creation time: stable across retries, never reused by another database's row.
        message = replace(self._maybe_late(item),
                          delivery_id=f"mayordomo-{item.id}-{int(item.created_at.timestamp() * 1000)}")
        try:
            sent = await messenger.send(item.chat, message)
        except asyncio.CancelledError:
            await asyncio.shield(self._release(item))
            raise
        except DeliveryError as exc:
            if exc.uncertain:
                log.warning("outbox: message %s may or may not have arrived (%s); not resending", item.id, exc)
                await self._settle(item, DeliveryStatus.UNCONFIRMED, None, str(exc))
                return True
            if exc.permanent:
                log.error("outbox: message %s refused for good: %s", item.id, exc)
                await self._settle(item, DeliveryStatus.FAILED, None, str(exc))
                return True
            await self._retry_later(item, str(exc))
            return None
        except Exception as exc:
            await self._retry_later(item, f"{type(exc).__name__}: {exc}")
            return None
        await self._settle(item, DeliveryStatus.DELIVERED, sent, "")
        return sent if sent is not None else True

    def _maybe_late(self, item: OutboxItem) -> OutboundMessage:
        if item.message.kind is not MessageKind.SCHEDULED:
            return item.message
        if self._clock.now() - item.created_at <= LATE_AFTER:
            return item.message
        lang = detect_language(item.message.text, self._language)
        due = item.created_at.astimezone(self._zone).strftime("%H:%M")
        return replace(item.message, text=f"{item.message.text}\n\n{replies.delivered_late(lang, due)}")

    async def _settle(self, item: OutboxItem, status: DeliveryStatus, sent: SentMessage | None,
                      error: str) -> None:
        """Final state; the text goes (layer A keeps answers, where /forget reaches them)."""
        now = self._clock.now().isoformat()
        settle = ("UPDATE outbox SET status = ?, delivered_at = ?, message_id = ?, last_error = ?, text = '',"
                  " receipts = '[]', attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL WHERE id = ?")
        params = (status.value, now, sent.message_id if sent else None, error or None, item.id)
        if item.job_id is None:
            await self._db.execute(settle, params)  # one statement is atomic on its own
            return
        async with self._db.transaction() as tx:
            await tx.execute(settle, params)
            await tx.execute(
                "UPDATE scheduled_once SET status = 'fired', fired_at = ? WHERE job_id = ?"
                " AND status = 'queued'", (now, item.job_id),
            )

    async def _retry_later(self, item: OutboxItem, error: str) -> None:
        attempts = item.attempts + 1
        delay = backoff_seconds(attempts)
        log.warning("outbox: message %s not delivered (attempt %d: %s); retrying in %.0f s",
                    item.id, attempts, error, delay)
        at = self._clock.now() + timedelta(seconds=delay)
        await self._db.execute(
            "UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, claimed_by = NULL,"
            " claimed_until = NULL WHERE id = ?",
            (attempts, at.isoformat(), error[:500], item.id),
        )
        self._wake.set()

    async def _release(self, item: OutboxItem) -> None:
        await self._db.execute("UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE id = ?",
                               (item.id,))

    async def _due_chats(self) -> list[ChatRef]:
        rows = await self._db.fetchall(
            "SELECT platform, chat_id, user_id, chat_kind FROM outbox WHERE status = ? AND next_attempt_at <= ?"
            " GROUP BY chat_key ORDER BY MIN(id)",
            (DeliveryStatus.PENDING.value, self._clock.now().isoformat()),
        )
        return [ChatRef(Platform(r["platform"]), r["chat_id"], r["user_id"], ChatKind(r["chat_kind"])) for r in rows]

    async def _next_retry_in(self) -> float:
        row = await self._db.fetchone("SELECT MIN(next_attempt_at) AS at FROM outbox WHERE status = ?",
                                      (DeliveryStatus.PENDING.value,))
        if row is None or row["at"] is None:
            return IDLE_CHECK_SECONDS
        seconds = (datetime.fromisoformat(row["at"]) - self._clock.now()).total_seconds()
        return min(max(seconds, 0.05), IDLE_CHECK_SECONDS)


def _item(row: Any) -> OutboxItem:
    chat = ChatRef(Platform(row["platform"]), row["chat_id"], row["user_id"], ChatKind(row["chat_kind"]))
    receipts = tuple(Receipt(ReceiptOutcome(outcome), summary) for outcome, summary in json.loads(row["receipts"]))
    message = OutboundMessage(row["text"], MessageKind(row["kind"]), tuple(json.loads(row["suggestions"])), receipts,
                              bool(row["ask_location"]))
    return OutboxItem(id=row["id"], chat=chat, message=message, job_id=row["job_id"],
                      attempts=row["attempts"], created_at=datetime.fromisoformat(row["created_at"]))
