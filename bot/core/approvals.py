"""Approvals as data: a request stored in SQLite, four outcomes, and only "approved" runs.

A request id is 128 random bits. A decision is accepted once, only from the user who
owns the request, only while it is live. Expiry is measured on the injected clock.
Pending requests found at start-up (the process restarted mid-wait) become cancelled
(or expired, if their time ran out meanwhile), and so do those open when the process stops.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from bot.clock import Clock
from bot.core.events import ApprovalDecision, ChatRef, Platform
from bot.core.grants import GrantStore, scope_from_json, scope_to_json
from memory.db import Database
from tools.invisible import reveal
from tools.policy import GrantScope
from tools.registry import LONG_VALUE_CHARS

log = logging.getLogger(__name__)


# An approved call waits at most this long (or the approval window, if longer) to run.
STALE_AFTER_AT_LEAST = timedelta(minutes=15)


class ApprovalOutcome(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class DecisionResult(StrEnum):
    """What happened to a button press; adapters turn it into a short notice."""

    ACCEPTED = "accepted"
    ACCEPTED_ALWAYS = "accepted_always"  # approved, and a standing grant was recorded
    NOT_GRANTABLE = "not_grantable"  # "always" asked for a request that may only be approved once
    UNKNOWN = "unknown"
    NOT_OWNER = "not_owner"
    ALREADY_DECIDED = "already_decided"
    EXPIRED = "expired"


@dataclass(frozen=True)
class ApprovalRequest:
    id: str
    chat: ChatRef
    tool: str
    arguments: str
    description: str
    created_at: datetime
    expires_at: datetime
    turn_id: int | None = None
    message_id: str | None = None
    grant: GrantScope | None = None  # what "always" would grant; None: approve once or deny only

    def arguments_dict(self) -> dict[str, Any]:
        loaded = json.loads(self.arguments)
        return loaded if isinstance(loaded, dict) else {}

    @property
    def fingerprint(self) -> str:
        """What the decision binds to: a hash of the exact arguments shown."""
        return arguments_fingerprint(self.arguments)

    def full_text(self) -> str:
        """Everything the approval is about, nothing summarised: for a "show all" view."""
        # The exact values, with hidden characters written out (the fingerprint is of the raw ones).
        exact = reveal(json.dumps(self.arguments_dict(), ensure_ascii=False, indent=2))
        return (f"{self.description}\n\nTool: {self.tool}\n"
                f"Exact arguments (fingerprint {self.fingerprint}):\n{exact}\n")

    def needs_full_view(self, shown_chars: int) -> bool:
        """True when `shown_chars` cannot show it all, or an argument was summarised."""
        return len(self.description) > shown_chars or any(
            len(json.dumps(value, ensure_ascii=False)) > LONG_VALUE_CHARS
            for value in self.arguments_dict().values()
        )


def arguments_fingerprint(arguments: str) -> str:
    return hashlib.sha256(arguments.encode("utf-8")).hexdigest()[:16]


class ApprovalBroker:
    def __init__(self, db: Database, clock: Clock, timeout: timedelta) -> None:
        self._db = db
        self.grants = GrantStore(db)
        self._clock = clock
        self.timeout = timeout
        self._waiting: dict[str, asyncio.Future[ApprovalOutcome]] = {}

    async def open(
        self, chat: ChatRef, tool: str, arguments: str, description: str, turn_id: int | None,
        grant: GrantScope | None = None,
    ) -> ApprovalRequest:
        now = self._clock.now()
        request = ApprovalRequest(
            id=secrets.token_urlsafe(16),
            chat=chat,
            tool=tool,
            arguments=arguments,
            description=description,
            created_at=now,
            expires_at=now + self.timeout,
            turn_id=turn_id,
            grant=grant,
        )
        await self._db.execute(
            "INSERT INTO approvals(id, user_key, platform, chat_id, turn_id, tool, arguments,"
            " description, status, created_at, expires_at, grant_scope) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                request.id,
                chat.user_key,
                chat.platform.value,
                chat.chat_id,
                turn_id,
                tool,
                arguments,
                description,
                ApprovalOutcome.PENDING.value,
                now.isoformat(),
                request.expires_at.isoformat(),
                scope_to_json(grant) if grant is not None else None,
            ),
        )
        return request

    async def attach_message(self, request: ApprovalRequest, message_id: str) -> ApprovalRequest:
        """Remember where the request was shown, so it can be edited after a restart."""
        await self._db.execute(
            "UPDATE approvals SET message_id = ? WHERE id = ?", (message_id, request.id)
        )
        return ApprovalRequest(**{**request.__dict__, "message_id": message_id})

    async def wait(self, request: ApprovalRequest) -> ApprovalOutcome:
        """Block until a decision or expiry; a cancelled wait records CANCELLED.

        (Turns do not wait in place: they park, see bot/core/parking.py.)
        """
        future = self._waiting.setdefault(request.id, asyncio.get_running_loop().create_future())
        timer: asyncio.Future[Any] | None = None
        try:
            if await self.status(request.id) is not ApprovalOutcome.PENDING:
                return await self.status(request.id)
            remaining = (request.expires_at - self._clock.now()).total_seconds()
            timer = asyncio.ensure_future(self._clock.sleep(remaining))
            await asyncio.wait([future, timer], return_when=asyncio.FIRST_COMPLETED)
            if future.done():
                return future.result()
            if await self._finish(request.id, ApprovalOutcome.EXPIRED):
                return ApprovalOutcome.EXPIRED
            return await self.status(request.id)
        except asyncio.CancelledError:
            await asyncio.shield(self._finish(request.id, ApprovalOutcome.CANCELLED))
            raise
        finally:
            if timer is not None:
                timer.cancel()
            self._waiting.pop(request.id, None)

    async def decide(self, decision: ApprovalDecision) -> DecisionResult:
        row = await self._db.fetchone(
            "SELECT user_key, status, expires_at, tool, grant_scope FROM approvals WHERE id = ?",
            (decision.request_id,),
        )
        if row is None:
            return DecisionResult.UNKNOWN
        if row["user_key"] != decision.chat.user_key:
            log.warning("approval %s: decision from non-owner ignored", decision.request_id[:6])
            return DecisionResult.NOT_OWNER
        if row["status"] == ApprovalOutcome.EXPIRED.value:
            return DecisionResult.EXPIRED
        if row["status"] != ApprovalOutcome.PENDING.value:
            return DecisionResult.ALREADY_DECIDED
        if self._clock.now() >= datetime.fromisoformat(row["expires_at"]):
            await self._finish(decision.request_id, ApprovalOutcome.EXPIRED)
            return DecisionResult.EXPIRED
        if decision.approve and decision.always:
            scope = scope_from_json(row["grant_scope"])
            if scope is None:
                return DecisionResult.NOT_GRANTABLE
            if not await self._finish(decision.request_id, ApprovalOutcome.APPROVED,
                                      grant=(row["user_key"], row["tool"], scope)):
                return DecisionResult.ALREADY_DECIDED
            return DecisionResult.ACCEPTED_ALWAYS
        outcome = ApprovalOutcome.APPROVED if decision.approve else ApprovalOutcome.DENIED
        if not await self._finish(decision.request_id, outcome):
            return DecisionResult.ALREADY_DECIDED
        return DecisionResult.ACCEPTED

    async def pending(self, request_id: str) -> ApprovalRequest | None:
        """A request still waiting for its decision, as stored; None otherwise."""
        row = await self._db.fetchone("SELECT * FROM approvals WHERE id = ? AND status = ?",
                                      (request_id, ApprovalOutcome.PENDING.value))
        return _request_from_row(row) if row is not None else None

    async def get(self, request_id: str) -> ApprovalRequest | None:
        """A request as stored, whatever its status."""
        row = await self._db.fetchone("SELECT * FROM approvals WHERE id = ?", (request_id,))
        return _request_from_row(row) if row is not None else None

    async def pending_in_chat(self, chat: ChatRef) -> list[ApprovalRequest]:
        """What this chat is still asked to decide, oldest first."""
        rows = await self._db.fetchall(
            "SELECT * FROM approvals WHERE status = ? AND platform = ? AND chat_id = ? ORDER BY created_at",
            (ApprovalOutcome.PENDING.value, chat.platform.value, chat.chat_id),
        )
        return [_request_from_row(row) for row in rows]

    async def expire_if_due(self, request_id: str) -> bool:
        """Silence is never consent: past its expiry, a pending request becomes expired."""
        row = await self._db.fetchone("SELECT expires_at FROM approvals WHERE id = ? AND status = ?",
                                      (request_id, ApprovalOutcome.PENDING.value))
        if row is None or self._clock.now() < datetime.fromisoformat(row["expires_at"]):
            return False
        return await self._finish(request_id, ApprovalOutcome.EXPIRED)

    async def binds(self, request_id: str, arguments: str) -> bool:
        """Whether `arguments` are exactly the ones the request showed (by fingerprint)."""
        row = await self._db.fetchone("SELECT arguments FROM approvals WHERE id = ?", (request_id,))
        return row is not None and arguments_fingerprint(row["arguments"]) == arguments_fingerprint(arguments)

    async def went_stale(self, request_id: str) -> bool:
        """Whether the decision is older than the time the user had to give it (and at least
        STALE_AFTER_AT_LEAST, so a chat's busy worker does not void it): a yes given just before
        a crash is for then, not for a restart hours later."""
        row = await self._db.fetchone("SELECT decided_at FROM approvals WHERE id = ?", (request_id,))
        if row is None or not row["decided_at"]:
            return False
        age = self._clock.now() - datetime.fromisoformat(row["decided_at"])
        return age > max(self.timeout, STALE_AFTER_AT_LEAST)

    async def cancel(self, request_id: str) -> bool:
        """The turn went away (or there is nowhere to ask): resolve as cancelled."""
        return await self._finish(request_id, ApprovalOutcome.CANCELLED)

    async def status(self, request_id: str) -> ApprovalOutcome:
        row = await self._db.fetchone("SELECT status FROM approvals WHERE id = ?", (request_id,))
        return ApprovalOutcome(row["status"]) if row else ApprovalOutcome.CANCELLED

    async def expire_overdue(self) -> list[ApprovalRequest]:
        """At start-up: requests whose time ran out while no process watched them are expired
        (silence is never consent), not cancelled."""
        rows = await self._db.fetchall(
            "SELECT * FROM approvals WHERE status = ? AND expires_at <= ?",
            (ApprovalOutcome.PENDING.value, self._clock.now().isoformat()),
        )
        return [_request_from_row(row) for row in rows if await self._finish(row["id"], ApprovalOutcome.EXPIRED)]

    async def cancel_stale(self) -> list[ApprovalRequest]:
        """At start-up: requests left pending by a previous process become cancelled."""
        rows = await self._db.fetchall(
            "SELECT * FROM approvals WHERE status = ?", (ApprovalOutcome.PENDING.value,)
        )
        stale = [row for row in rows if row["id"] not in self._waiting]
        for row in stale:
            await self._finish(row["id"], ApprovalOutcome.CANCELLED)
        return [_request_from_row(row) for row in stale]

    async def _finish(self, request_id: str, outcome: ApprovalOutcome,
                      grant: tuple[str, str, GrantScope] | None = None) -> bool:
        """Move a pending request to `outcome` (recording a grant with it, all or nothing);
        False if something else got there first."""
        now = self._clock.now()
        async with self._db.transaction() as tx:
            changed = await tx.rowcount(
                "UPDATE approvals SET status = ?, decided_at = ? WHERE id = ? AND status = ?",
                (outcome.value, now.isoformat(), request_id, ApprovalOutcome.PENDING.value),
            )
            if changed and grant is not None:
                user_key, tool, scope = grant
                await self.grants.add(tx, user_key, tool, scope, request_id, now)
        if changed:
            future = self._waiting.get(request_id)
            if future is not None and not future.done():
                future.set_result(outcome)
        return bool(changed)


def _request_from_row(row: Any) -> ApprovalRequest:
    return ApprovalRequest(
        id=row["id"],
        chat=ChatRef(
            platform=Platform(row["platform"]),
            chat_id=row["chat_id"],
            user_id=row["user_key"].split(":", 1)[1],
        ),
        tool=row["tool"],
        arguments=row["arguments"],
        description=row["description"],
        created_at=datetime.fromisoformat(row["created_at"]),
        expires_at=datetime.fromisoformat(row["expires_at"]),
        turn_id=row["turn_id"],
        message_id=row["message_id"],
        grant=scope_from_json(row["grant_scope"]),
    )
