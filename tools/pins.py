"""Pins of third-party tools: the hash of the description and schema the owner approved."""

from __future__ import annotations

from datetime import datetime

from memory.db import Database


class ToolPins:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def matches(self, tool: str, pin: str) -> bool:
        row = await self._db.fetchone("SELECT pin FROM tool_pins WHERE tool = ?", (tool,))
        return row is not None and row["pin"] == pin

    async def approve(self, tool: str, pin: str, at: datetime) -> None:
        await self._db.execute(
            "INSERT INTO tool_pins(tool, pin, approved_at) VALUES (?,?,?)"
            " ON CONFLICT(tool) DO UPDATE SET pin = excluded.pin, approved_at = excluded.approved_at",
            (tool, pin, at.isoformat()),
        )
