"""Turns parked on an approval: a continuation in SQLite, so a decision never holds the chat.

A turn whose next tool call needs the user's yes saves what finishes it honestly (the
messages so far, the round's calls and the results already in, the calls this turn made
and the verification so far; written and read by the turn runner) and lets its chat go
on. The decision, whenever it comes (approve, deny, expiry, or cancellation at a stop or
restart), queues the turn's resumption in the chat's inbox, behind what is already there.

The rules: a turn waits for one request at a time. Calls of one model round run in the
order the model gave them; the first that needs approval parks the turn, the calls after
it wait with it, and the next one that needs approval parks it again after the decision.
Turns are independent: while one is parked, later messages are answered, and another turn
of the same chat may park on its own request; each decision resumes only its own turn,
in the order the decisions arrive. The saved state lives only until the turn answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.core.events import ChatKind, ChatRef, Platform
from memory.db import Database, Transaction
from memory.messages import chat_key


@dataclass(frozen=True)
class Continuation:
    turn_id: int
    chat: ChatRef
    inbox_id: int  # the event this turn answers
    approval_id: str  # the request it waits for
    state: str  # the turn runner's own record of where it stopped


class ParkedTurns:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def park(self, continuation: Continuation, at: datetime, tx: Transaction) -> None:
        """Save (or move on, when the turn parks again on its next request) a continuation."""
        chat = continuation.chat
        await tx.execute(
            "INSERT INTO parked_turns(turn_id, chat_key, platform, chat_id, user_id, chat_kind, inbox_id,"
            " approval_id, state, parked_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(turn_id) DO UPDATE SET approval_id = excluded.approval_id, state = excluded.state,"
            " parked_at = excluded.parked_at",
            (continuation.turn_id, chat_key(chat), chat.platform.value, chat.chat_id, chat.user_id,
             chat.kind.value, continuation.inbox_id, continuation.approval_id, continuation.state,
             at.isoformat()),
        )

    async def waiting_for(self, approval_id: str) -> Continuation | None:
        row = await self._db.fetchone("SELECT * FROM parked_turns WHERE approval_id = ?", (approval_id,))
        return _continuation(row) if row is not None else None

    async def of_event(self, inbox_id: int) -> Continuation | None:
        row = await self._db.fetchone("SELECT * FROM parked_turns WHERE inbox_id = ?", (inbox_id,))
        return _continuation(row) if row is not None else None

    async def all(self) -> list[Continuation]:
        return [_continuation(row) for row in await self._db.fetchall("SELECT * FROM parked_turns ORDER BY turn_id")]

    async def drop(self, turn_id: int, tx: Transaction) -> None:
        await tx.execute("DELETE FROM parked_turns WHERE turn_id = ?", (turn_id,))


def _continuation(row: Any) -> Continuation:
    chat = ChatRef(Platform(row["platform"]), row["chat_id"], row["user_id"], ChatKind(row["chat_kind"]))
    return Continuation(turn_id=row["turn_id"], chat=chat, inbox_id=row["inbox_id"],
                        approval_id=row["approval_id"], state=row["state"])
