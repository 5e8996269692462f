"""The Matrix adapter's own table: approval message event id <-> approval request id."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.db import Database


@dataclass(frozen=True)
class ApprovalMessage:
    event_id: str
    request_id: str
    room_id: str
    reaction_event_ids: tuple[str, ...]


class ApprovalMessages:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, event_id: str, request_id: str, room_id: str, at: datetime) -> None:
        await self._db.execute(
            "INSERT OR REPLACE INTO matrix_approval_messages(event_id, request_id, room_id, created_at)"
            " VALUES (?, ?, ?, ?)",
            (event_id, request_id, room_id, at.isoformat()),
        )

    async def add_reaction(self, event_id: str, reaction_event_id: str) -> None:
        found = await self.by_event(event_id)
        if found is None:
            return
        reactions = [*found.reaction_event_ids, reaction_event_id]
        await self._db.execute(
            "UPDATE matrix_approval_messages SET reaction_event_ids = ? WHERE event_id = ?",
            (json.dumps(reactions), event_id),
        )

    async def by_event(self, event_id: str) -> ApprovalMessage | None:
        row = await self._db.fetchone(
            "SELECT * FROM matrix_approval_messages WHERE event_id = ?", (event_id,)
        )
        return _message(row) if row is not None else None

    async def clear_reactions(self, event_id: str) -> None:
        await self._db.execute(
            "UPDATE matrix_approval_messages SET reaction_event_ids = '[]' WHERE event_id = ?",
            (event_id,),
        )


def _message(row: Any) -> ApprovalMessage:
    return ApprovalMessage(
        event_id=row["event_id"],
        request_id=row["request_id"],
        room_id=row["room_id"],
        reaction_event_ids=tuple(json.loads(row["reaction_event_ids"])),
    )
