from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.clock import ManualClock
from bot.scheduler import OnceJob, Scheduler
from memory.db import Database

MADRID = ZoneInfo("Europe/Madrid")


async def test_daily_job_fires_once_per_day_at_local_time(db: Database) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 20, 0, tzinfo=UTC))  # 21:00 Madrid
    fired: list[datetime] = []

    async def job(at: datetime) -> None:
        fired.append(at)

    scheduler = Scheduler(db, clock)
    scheduler.add_daily("diary", 23, 30, MADRID, job)
    assert await scheduler.tick() == []  # first sight: nothing replayed
    clock.set(datetime(2026, 3, 2, 22, 29, tzinfo=UTC))
    assert await scheduler.tick() == []
    clock.set(datetime(2026, 3, 2, 22, 30, tzinfo=UTC))
    assert await scheduler.tick() == ["diary"]
    assert await scheduler.tick() == []
    assert fired == [datetime(2026, 3, 2, 23, 30, tzinfo=MADRID)]


async def test_missed_days_fire_once_after_downtime_and_survive_restart(db: Database) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 20, 0, tzinfo=UTC))
    fired: list[datetime] = []

    async def job(at: datetime) -> None:
        fired.append(at)

    first = Scheduler(db, clock)
    first.add_daily("briefing", 8, 0, MADRID, job)
    await first.tick()
    clock.set(datetime(2026, 3, 6, 12, 0, tzinfo=UTC))  # down for four days
    second = Scheduler(db, clock)  # a new process
    second.add_daily("briefing", 8, 0, MADRID, job)
    assert await second.tick() == ["briefing"]
    assert await second.tick() == []
    assert fired == [datetime(2026, 3, 6, 8, 0, tzinfo=MADRID)]  # only the latest


async def test_daily_job_across_dst_change_keeps_local_hour(db: Database) -> None:
    # Madrid moves to summer time on 2026-03-29 (02:00 -> 03:00).
    clock = ManualClock(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    fired: list[datetime] = []

    async def job(at: datetime) -> None:
        fired.append(at)

    scheduler = Scheduler(db, clock)
    scheduler.add_daily("diary", 23, 0, MADRID, job)
    await scheduler.tick()
    clock.set(datetime(2026, 3, 28, 22, 0, tzinfo=UTC))  # 23:00 CET
    await scheduler.tick()
    clock.set(datetime(2026, 3, 29, 21, 0, tzinfo=UTC))  # 23:00 CEST
    await scheduler.tick()
    assert [f.astimezone(MADRID).hour for f in fired] == [23, 23]
    assert [f.utcoffset() for f in fired] == [timedelta(hours=1), timedelta(hours=2)]


async def test_one_shot_fires_exactly_once_late_after_restart(db: Database) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    seen: list[tuple[str, timedelta]] = []

    async def remind(job: OnceJob, late: timedelta) -> None:
        seen.append((job.payload["text"], late))

    first = Scheduler(db, clock)
    first.on_once("reminder", remind)
    await first.schedule_once("r1", "reminder", "console:owner", datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
                              {"text": "call mum"})
    await first.tick()
    assert seen == []
    clock.set(datetime(2026, 3, 2, 11, 0, tzinfo=UTC))  # process was down at 09:00
    second = Scheduler(db, clock)
    second.on_once("reminder", remind)
    await second.tick()
    await second.tick()
    assert seen == [("call mum", timedelta(hours=2))]
    assert await second.pending_once("console:owner") == []


async def test_failing_job_does_not_stop_others(db: Database) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    fired: list[str] = []

    async def broken(at: datetime) -> None:
        raise RuntimeError("boom")

    async def fine(at: datetime) -> None:
        fired.append("fine")

    scheduler = Scheduler(db, clock)
    scheduler.add_daily("a-broken", 9, 30, MADRID, broken)
    scheduler.add_daily("b-fine", 9, 30, MADRID, fine)
    await scheduler.tick()
    clock.set(datetime(2026, 3, 2, 8, 31, tzinfo=UTC))
    assert await scheduler.tick() == ["a-broken", "b-fine"]
    assert fired == ["fine"]
