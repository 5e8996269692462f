"""Reminders through the real scheduler and assistant: on time, after a restart, after downtime."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.core.assistant import Assistant
from bot.core.events import MessageKind
from bot.errors import ToolError
from bot.scheduler import Scheduler
from memory.db import Database
from tests.skills.helpers import MADRID, bound, call, context
from tests.support import OWNER, RecordingMessenger, build_assistant, make_settings
from tools.policy import Policy
from tools.registry import Decision
from tools.skills.reminders import REMINDER_KIND, ReminderDelivery, RemindersSkill


async def owner_assistant(tmp_path: Path, db: Database, clock: ManualClock) -> tuple[Assistant, RecordingMessenger]:
    assistant, messenger = await build_assistant(make_settings(tmp_path), db, clock, with_model=False)
    await assistant.chats.seen(OWNER, clock.now())
    return assistant, messenger


def wire(assistant: Assistant, db: Database, clock: ManualClock) -> tuple[Scheduler, RemindersSkill]:
    scheduler = Scheduler(db, clock)
    ReminderDelivery(assistant.deliver, default_zone=MADRID).install(scheduler)
    return scheduler, RemindersSkill(scheduler)


def scheduled(messenger: RecordingMessenger) -> list[str]:
    return [message.text for _, message in messenger.sent if message.kind is MessageKind.SCHEDULED]


async def test_fires_on_time_exactly_once(tmp_path: Path, db: Database, clock: ManualClock) -> None:
    assistant, messenger = await owner_assistant(tmp_path, db, clock)
    scheduler, skill = wire(assistant, db, clock)
    answer = await call(skill, "set_reminder", context(db, clock), at="2026-03-02T18:00",
                        text="call the plumber")
    assert "Mon 2026-03-02 18:00" in answer and "call the plumber" in answer
    [job] = await scheduler.pending_once(OWNER.user_key, REMINDER_KIND)
    assert job.run_at == datetime(2026, 3, 2, 17, 0, tzinfo=UTC)

    clock.set(datetime(2026, 3, 2, 16, 59, 30, tzinfo=UTC))
    assert await scheduler.tick() == []
    assert scheduled(messenger) == []
    clock.set(datetime(2026, 3, 2, 17, 0, 20, tzinfo=UTC))
    assert await scheduler.tick() == [job.job_id]
    assert scheduled(messenger) == ["⏰ Reminder: call the plumber"]
    assert messenger.sent[-1][0] == OWNER
    clock.set(datetime(2026, 3, 2, 17, 5, tzinfo=UTC))
    assert await scheduler.tick() == []
    assert len(scheduled(messenger)) == 1
    assert "No pending reminders" in await call(skill, "list_reminders", context(db, clock))


async def test_survives_a_restart(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "restart.sqlite3"
    first_db = await Database.open(path)
    assistant, _ = await owner_assistant(tmp_path, first_db, clock)
    _, skill = wire(assistant, first_db, clock)
    await call(skill, "set_reminder", context(first_db, clock), at="2026-03-02T12:30", text="take the pills")
    await first_db.close()

    # A new process: new database handle, new assistant, new scheduler on the same file.
    second_db = await Database.open(path)
    try:
        assistant, messenger = await build_assistant(make_settings(tmp_path), second_db, clock, with_model=False)
        scheduler, _ = wire(assistant, second_db, clock)
        clock.set(datetime(2026, 3, 2, 11, 30, 5, tzinfo=UTC))  # 12:30:05 in Madrid
        fired = await scheduler.tick()
        assert len(fired) == 1
        assert scheduled(messenger) == ["⏰ Reminder: take the pills"]
    finally:
        await second_db.close()


async def test_after_downtime_fires_once_and_says_it_is_late(tmp_path: Path, db: Database,
                                                             clock: ManualClock) -> None:
    assistant, _ = await owner_assistant(tmp_path, db, clock)
    _, skill = wire(assistant, db, clock)
    await call(skill, "set_reminder", context(db, clock), at="2026-03-02T10:00", text="recoger el paquete")

    # Down from before 10:00 until 13:15: the next scheduler starts late.
    clock.set(datetime(2026, 3, 2, 12, 15, tzinfo=UTC))
    assistant2, messenger2 = await build_assistant(make_settings(tmp_path), db, clock, with_model=False)
    scheduler2, _ = wire(assistant2, db, clock)
    await scheduler2.tick()
    await scheduler2.tick()
    texts = scheduled(messenger2)
    assert len(texts) == 1
    assert texts[0].startswith("⏰ Recordatorio (con retraso")
    assert "era para Mon 2026-03-02 10:00" in texts[0]
    assert "hace 3 h" in texts[0] and texts[0].endswith("recoger el paquete")


async def test_english_late_message(db: Database) -> None:
    from bot.scheduler import OnceJob

    delivery = ReminderDelivery(_no_delivery, language="auto", default_zone=MADRID)
    job = OnceJob("reminder-x", REMINDER_KIND, OWNER.user_key, datetime(2026, 3, 2, 17, 0, tzinfo=UTC),
                  {"text": "call the plumber", "zone": "Europe/Madrid"})
    assert delivery.render(job, timedelta(seconds=40)) == "⏰ Reminder: call the plumber"
    late = delivery.render(job, timedelta(minutes=45))
    assert late == ("⏰ Reminder (late: it was due Mon 2026-03-02 18:00, 45 min ago, while I was offline): "
                    "call the plumber")


async def _no_delivery(user_key: str, message: object) -> None:
    return None


async def test_past_times_bad_input_list_and_cancel(tmp_path: Path, db: Database, clock: ManualClock) -> None:
    assistant, messenger = await owner_assistant(tmp_path, db, clock)
    scheduler, skill = wire(assistant, db, clock)
    ctx = context(db, clock)  # 09:00 in Madrid
    with pytest.raises(ToolError, match="already passed"):
        await call(skill, "set_reminder", ctx, at="2026-03-02T08:30", text="too late")
    with pytest.raises(ToolError, match="no time of day"):
        await call(skill, "set_reminder", ctx, at="2026-03-03", text="whenever")
    with pytest.raises(ToolError, match="needs a text"):
        await call(skill, "set_reminder", ctx, at="2026-03-03T10:00", text="  ")
    assert await scheduler.pending_once(OWNER.user_key) == []

    await call(skill, "set_reminder", ctx, at="2026-03-03T10:00", text="gym")
    await call(skill, "set_reminder", ctx, at="2026-03-02T20:00", text="bins out")
    listed = await call(skill, "list_reminders", ctx)
    assert listed.index("bins out") < listed.index("gym")
    gym = next(j for j in await scheduler.pending_once(OWNER.user_key) if j.payload["text"] == "gym")
    assert "Cancelled" in await call(skill, "cancel_reminder", ctx, reminder_id=gym.job_id)
    with pytest.raises(ToolError, match="no pending reminder"):
        await call(skill, "cancel_reminder", ctx, reminder_id=gym.job_id)
    clock.set(datetime(2026, 3, 3, 10, 0, tzinfo=UTC))
    await scheduler.tick()
    [only] = scheduled(messenger)
    assert only.startswith("⏰ Reminder (late: it was due Mon 2026-03-02 20:00") and only.endswith("bins out")


def test_reminder_tools_always_notify(db: Database, clock: ManualClock) -> None:
    skill = RemindersSkill(Scheduler(db, clock))
    set_ = bound(skill, "set_reminder")
    args = set_.parse({"at": "2026-03-03T10:00", "text": "x"})
    assert Policy().decide(set_, args) is Decision.NOTIFY
    # An override cannot make it silent; approval-level overrides are the owner's choice.
    assert Policy(overrides={"set_reminder": Decision.ALLOW}).decide(set_, args) is Decision.NOTIFY
    cancel = bound(skill, "cancel_reminder")
    assert Policy().decide(cancel, cancel.parse({"reminder_id": "r"})) is Decision.NOTIFY
    assert set_.describe(args) == "Set a reminder for Tue 2026-03-03 10:00: “x”"
