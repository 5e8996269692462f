"""Who works this database: the process that owns it now, and the one before it.

One process serves a database at a time (`bot.instance_lock` makes a second one fail at
start-up with one line). Its claims on inbox and outbox rows carry a lease that a
heartbeat renews while the work runs. At start-up the new owner takes over the rows its
predecessor on this database held, and any whose lease ran out; rows claimed by some
other worker under a live lease are left alone.
"""

from __future__ import annotations

from datetime import datetime

from memory.db import Database

# How often running work renews its leases (well inside the shortest lease).
HEARTBEAT_SECONDS = 20.0


class Ownership:
    def __init__(self, db: Database, worker: str) -> None:
        self._db = db
        self.worker = worker

    async def take(self, at: datetime) -> str | None:
        """Become the owner; returns the previous owner's worker id (None on a first start)."""
        async with self._db.transaction() as tx:
            row = await tx.fetchone("SELECT worker FROM process_owner WHERE id = 1")
            await tx.execute(
                "INSERT INTO process_owner(id, worker, started_at, seen_at) VALUES (1, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET worker = excluded.worker, started_at = excluded.started_at,"
                " seen_at = excluded.seen_at",
                (self.worker, at.isoformat(), at.isoformat()),
            )
        return str(row["worker"]) if row is not None else None

    async def seen(self, at: datetime) -> None:
        await self._db.execute("UPDATE process_owner SET seen_at = ? WHERE id = 1 AND worker = ?",
                               (at.isoformat(), self.worker))
