"""Jobs that post into chats: recurring (diary, briefing, digest, consolidation) and
one-shot (reminders), in the user's time zone, surviving restarts.

What is due is decided here from the injected clock and what SQLite remembers: a
recurring job fires for the most recent scheduled time after its last recorded fire,
at most once however long the downtime (catch-up); a one-shot job fires exactly once,
late if need be (its handler is told how late). A one-shot job is claimed with a lease
while its handler runs; a message it posts is queued in the outbox in the same
transaction that marks the job `queued`, and the job becomes `fired` when that message is
delivered (a job that posts nothing is `fired` when its handler returns). APScheduler's AsyncIOScheduler is only
the alarm that calls `tick()` at the right wall-clock moments; tests call `tick()`
themselves with a ManualClock.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger

from bot.clock import Clock
from memory.db import Database

log = logging.getLogger(__name__)

FIRING_JOB: contextvars.ContextVar[str | None] = contextvars.ContextVar("firing_job", default=None)
"""The one-shot job whose handler is running: the outbox ties what it posts to the job."""
# How long a one-shot job is claimed while its handler runs (several workers may tick).
ONCE_LEASE = timedelta(minutes=10)

RecurringHandler = Callable[[datetime], Awaitable[None]]
"""Called with the scheduled fire time (aware, in the job's zone)."""


@dataclass(frozen=True)
class OnceJob:
    job_id: str
    kind: str
    user_key: str
    run_at: datetime
    payload: dict[str, Any]


OnceHandler = Callable[[OnceJob, timedelta], Awaitable[None]]
"""Called with the job and how late it fires (zero or more)."""


@dataclass(frozen=True)
class _Recurring:
    job_id: str
    trigger: CronTrigger
    handler: RecurringHandler
    zone: ZoneInfo


class Scheduler:
    def __init__(self, db: Database, clock: Clock, *, tick_seconds: float = 30.0,
                 worker: str = "main") -> None:
        self._db = db
        self._worker = worker
        self._clock = clock
        self._recurring: dict[str, _Recurring] = {}
        self._once_handlers: dict[str, OnceHandler] = {}
        self._tick_lock = asyncio.Lock()
        self._aps: AsyncIOScheduler | None = None
        self._tick_seconds = tick_seconds

    # -- registration ---------------------------------------------------------------
    def add_daily(self, job_id: str, hour: int, minute: int, zone: ZoneInfo,
                  handler: RecurringHandler) -> None:
        """Every day at hour:minute local time (DST handled by the cron trigger)."""
        self.add_cron(job_id, CronTrigger(hour=hour, minute=minute, timezone=zone), zone, handler)

    def add_cron(self, job_id: str, trigger: CronTrigger, zone: ZoneInfo,
                 handler: RecurringHandler) -> None:
        self._recurring[job_id] = _Recurring(job_id, trigger, handler, zone)

    def on_once(self, kind: str, handler: OnceHandler) -> None:
        """Register the handler for one-shot jobs of `kind` (e.g. "reminder")."""
        self._once_handlers[kind] = handler

    async def schedule_once(self, job_id: str, kind: str, user_key: str, run_at: datetime,
                            payload: dict[str, Any]) -> None:
        """Persist a one-shot job; it survives restarts and fires exactly once."""
        await self._db.execute(
            "INSERT INTO scheduled_once(job_id, kind, user_key, run_at, payload) VALUES (?,?,?,?,?)"
            " ON CONFLICT(job_id) DO UPDATE SET run_at = excluded.run_at, payload = excluded.payload,"
            " status = 'pending', fired_at = NULL, claimed_by = NULL, claimed_until = NULL",
            (job_id, kind, user_key, run_at.isoformat(), json.dumps(payload, ensure_ascii=False)),
        )
        self._wake_soon()

    async def cancel_once(self, job_id: str) -> bool:
        return bool(await self._db.rowcount(
            "UPDATE scheduled_once SET status = 'cancelled' WHERE job_id = ? AND status = 'pending'",
            (job_id,),
        ))

    async def pending_once(self, user_key: str, kind: str | None = None) -> list[OnceJob]:
        rows = await self._db.fetchall(
            "SELECT * FROM scheduled_once WHERE status = 'pending' AND user_key = ?"
            " AND (? IS NULL OR kind = ?) ORDER BY run_at",
            (user_key, kind, kind),
        )
        return [_once(row) for row in rows]

    # -- firing ----------------------------------------------------------------------
    async def tick(self) -> list[str]:
        """Fire everything due now, each at most once; returns the job ids fired."""
        async with self._tick_lock:
            now = self._clock.now()
            fired: list[str] = []
            for job in list(self._recurring.values()):
                due = await self._due_fire_time(job, now)
                if due is None:
                    continue
                # Recorded before running: a crash mid-job must not make it fire twice.
                await self._db.execute(
                    "INSERT INTO job_runs(job_id, last_fire) VALUES (?, ?)"
                    " ON CONFLICT(job_id) DO UPDATE SET last_fire = excluded.last_fire",
                    (job.job_id, due.isoformat()),
                )
                fired.append(job.job_id)
                await self._run(job.job_id, job.handler(due))
            rows = await self._db.fetchall(
                "SELECT * FROM scheduled_once WHERE status = 'pending' AND run_at <= ? ORDER BY run_at",
                (now.isoformat(),),
            )
            for row in rows:
                once = _once(row)
                handler = self._once_handlers.get(once.kind)
                if handler is None:
                    continue
                claimed = await self._db.rowcount(
                    "UPDATE scheduled_once SET claimed_by = ?, claimed_until = ? WHERE job_id = ?"
                    " AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= ?)",
                    (self._worker, (now + ONCE_LEASE).isoformat(), once.job_id, now.isoformat()),
                )
                if not claimed:
                    continue
                fired.append(once.job_id)
                token = FIRING_JOB.set(once.job_id)
                try:
                    ok = await self._run(once.job_id, handler(once, max(now - once.run_at, timedelta(0))))
                finally:
                    FIRING_JOB.reset(token)
                # Posted something: the outbox marked it queued and marks it fired on delivery.
                await self._db.execute(
                    "UPDATE scheduled_once SET status = ?, fired_at = ?, claimed_by = NULL,"
                    " claimed_until = NULL WHERE job_id = ? AND status = 'pending'",
                    ("fired" if ok else "failed", now.isoformat(), once.job_id),
                )
            return fired

    async def _due_fire_time(self, job: _Recurring, now: datetime) -> datetime | None:
        row = await self._db.fetchone("SELECT last_fire FROM job_runs WHERE job_id = ?", (job.job_id,))
        local_now = now.astimezone(job.zone)
        if row is None:
            # First sight of this job: start counting from now, do not replay history.
            await self._db.execute(
                "INSERT INTO job_runs(job_id, last_fire) VALUES (?, ?)", (job.job_id, now.isoformat())
            )
            return None
        last = datetime.fromisoformat(row["last_fire"]).astimezone(job.zone)
        latest: datetime | None = None
        candidate = job.trigger.get_next_fire_time(None, last + timedelta(seconds=1))
        while candidate is not None and candidate <= local_now:
            latest = candidate
            candidate = job.trigger.get_next_fire_time(candidate, candidate + timedelta(seconds=1))
        return latest

    async def _run(self, job_id: str, work: Awaitable[None]) -> bool:
        try:
            await work
        except Exception:
            log.exception("scheduled job %s failed", job_id)
            return False
        return True

    # -- wall clock ------------------------------------------------------------------
    async def start(self) -> None:
        """Catch up on anything missed while down, then tick on a short interval."""
        await self.tick()
        self._aps = AsyncIOScheduler()
        self._aps.add_job(self.tick, "interval", seconds=self._tick_seconds, id="mayordomo-tick",
                          max_instances=1, coalesce=True)
        self._aps.start()

    async def stop(self) -> None:
        if self._aps is not None:
            self._aps.shutdown(wait=False)
            self._aps = None

    def _wake_soon(self) -> None:
        if self._aps is not None:
            self._aps.add_job(self.tick, "date", run_date=datetime.now(ZoneInfo("UTC")) + timedelta(seconds=1))


def _once(row: Any) -> OnceJob:
    return OnceJob(
        job_id=row["job_id"],
        kind=row["kind"],
        user_key=row["user_key"],
        run_at=datetime.fromisoformat(row["run_at"]),
        payload=json.loads(row["payload"]),
    )
