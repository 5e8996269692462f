"""Turn records: what each turn routed, called, got back and answered (full results)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from bot.core.events import ChatRef
from memory.db import Database
from memory.messages import chat_key


class TurnStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def start(self, chat: ChatRef, at: datetime) -> int:
        return await self._db.execute(
            "INSERT INTO turns(user_key, chat_key, started_at) VALUES (?,?,?)",
            (chat.user_key, chat_key(chat), at.isoformat()),
        )

    async def record_route(self, turn_id: int, route: dict[str, Any], exposed_tokens: int,
                           catalog_tokens: int) -> None:
        await self._db.execute(
            "UPDATE turns SET route_json = ?, exposed_tool_tokens = ?, catalog_tool_tokens = ? WHERE id = ?",
            (json.dumps(route, ensure_ascii=False), exposed_tokens, catalog_tokens, turn_id),
        )

    async def mark_untrusted(self, turn_id: int) -> None:
        """The turn saw third-party content itself (the chat's next turn inherits it)."""
        await self._db.execute("UPDATE turns SET untrusted_seen = 1 WHERE id = ?", (turn_id,))

    async def previous(self, chat: ChatRef, turn_id: int) -> tuple[int, bool] | None:
        """The chat's turn before `turn_id`: its id, and whether it saw third-party content."""
        row = await self._db.fetchone(
            "SELECT id, untrusted_seen FROM turns WHERE chat_key = ? AND id < ? ORDER BY id DESC LIMIT 1",
            (chat_key(chat), turn_id))
        return None if row is None else (int(row["id"]), bool(row["untrusted_seen"]))

    async def record_call(
        self, turn_id: int, *, call_id: str, tool: str, arguments: str, risk: str, decision: str,
        status: str, result: str | None, error: str | None, at: datetime, approval_id: str | None = None,
    ) -> None:
        await self._db.execute(
            "INSERT INTO tool_calls(turn_id, call_id, tool, arguments, risk, decision, approval_id,"
            " status, result, error, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (turn_id, call_id, tool, arguments, risk, decision, approval_id, status, result, error,
             at.isoformat()),
        )

    async def finish(self, turn_id: int, *, outcome: str, answer: str, at: datetime,
                     verification: list[dict[str, Any]]) -> None:
        await self._db.execute(
            "UPDATE turns SET finished_at = ?, outcome = ?, answer = ?, verification_json = ? WHERE id = ?",
            (at.isoformat(), outcome, answer, json.dumps(verification, ensure_ascii=False), turn_id),
        )

    async def calls(self, turn_id: int) -> list[Any]:
        return await self._db.fetchall("SELECT * FROM tool_calls WHERE turn_id = ? ORDER BY id", (turn_id,))

    async def get(self, turn_id: int) -> Any:
        return await self._db.fetchone("SELECT * FROM turns WHERE id = ?", (turn_id,))
