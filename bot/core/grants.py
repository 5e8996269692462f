"""Standing grants in SQLite: what the owner said "always" to, until revoked."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memory.db import Database, Transaction
from tools.policy import Grant, GrantScope, ScopeKind


def scope_to_json(scope: GrantScope) -> str:
    return json.dumps({"kind": scope.kind.value, "values": list(scope.values)}, ensure_ascii=False)


def scope_from_json(text: str | None) -> GrantScope | None:
    if not text:
        return None
    loaded = json.loads(text)
    return GrantScope(ScopeKind(loaded["kind"]), tuple(str(v) for v in loaded.get("values", [])))


class GrantStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, tx: Transaction, user_key: str, tool: str, scope: GrantScope,
                  approval_id: str, at: datetime) -> int:
        """Record a grant inside the transaction that accepted the "always" answer."""
        existing = await tx.fetchone(
            "SELECT id FROM grants WHERE user_key = ? AND tool = ? AND scope_kind = ? AND scope_values = ?"
            " AND revoked_at IS NULL",
            (user_key, tool, scope.kind.value, json.dumps(list(scope.values), ensure_ascii=False)),
        )
        if existing is not None:
            return int(existing["id"])
        return await tx.execute(
            "INSERT INTO grants(user_key, tool, scope_kind, scope_values, description, approval_id,"
            " created_at) VALUES (?,?,?,?,?,?,?)",
            (user_key, tool, scope.kind.value, json.dumps(list(scope.values), ensure_ascii=False),
             f"{tool} {scope.describe()}", approval_id, at.isoformat()),
        )

    async def active(self, user_key: str, tool: str | None = None) -> list[Grant]:
        sql = "SELECT * FROM grants WHERE user_key = ? AND revoked_at IS NULL"
        params: tuple[Any, ...] = (user_key,)
        if tool is not None:
            sql += " AND tool = ?"
            params += (tool,)
        rows = await self._db.fetchall(sql + " ORDER BY id", params)
        return [_grant(row) for row in rows]

    async def by_approval(self, approval_id: str) -> Grant | None:
        row = await self._db.fetchone(
            "SELECT * FROM grants WHERE approval_id = ? AND revoked_at IS NULL", (approval_id,))
        return _grant(row) if row is not None else None

    async def revoke(self, user_key: str, grant_id: int | None, at: datetime) -> int:
        """Revoke one grant (or all when `grant_id` is None); only the owner's own; how many."""
        sql = "UPDATE grants SET revoked_at = ? WHERE user_key = ? AND revoked_at IS NULL"
        params: tuple[Any, ...] = (at.isoformat(), user_key)
        if grant_id is not None:
            sql += " AND id = ?"
            params += (grant_id,)
        return await self._db.rowcount(sql, params)

    async def record_use(self, grant: Grant, turn_id: int | None, call_id: str, at: datetime) -> None:
        await self._db.execute(
            "INSERT INTO grant_uses(grant_id, turn_id, call_id, used_at) VALUES (?,?,?,?)",
            (grant.id, turn_id, call_id, at.isoformat()),
        )


def _grant(row: Any) -> Grant:
    scope = GrantScope(ScopeKind(row["scope_kind"]), tuple(json.loads(row["scope_values"])))
    return Grant(id=int(row["id"]), user_key=row["user_key"], tool=row["tool"], scope=scope)
