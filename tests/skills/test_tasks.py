"""To-dos as VTODO on a real Radicale: create, list, complete, delete with approval."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.config import CalDAVSettings
from bot.errors import ToolError
from bot.scheduler import Scheduler
from memory.db import Database
from tests.skills.conftest import RadicaleServer
from tests.skills.helpers import bound, call, context
from tools.caldav import CalDAVStore
from tools.policy import Policy
from tools.registry import Decision
from tools.skills.tasks import TasksSkill


def server_todos(radicale: RadicaleServer, calendar_name: str) -> dict[str, Any]:
    return {str(todo.get("summary")): todo for todo in radicale.todos(calendar_name)}


@pytest.fixture
def tasks(caldav_settings: CalDAVSettings, db: Database, clock: ManualClock) -> TasksSkill:
    return TasksSkill(CalDAVStore(caldav_settings, now=clock.now), Scheduler(db, clock))


async def test_create_list_complete(tasks: TasksSkill, db: Database, clock: ManualClock,
                                    radicale: RadicaleServer, calendar_name: str) -> None:
    ctx = context(db, clock)  # Monday 2026-03-02 09:00 in Madrid
    assert await call(tasks, "list_tasks", ctx) == "No open tasks."
    added = await call(tasks, "create_task", ctx, title="Buy milk", due="2026-03-02T18:00")
    assert "Buy milk" in added and "due Mon 2026-03-02 18:00" in added
    await call(tasks, "create_task", ctx, title="Renew passport", due="2026-02-27")
    await call(tasks, "create_task", ctx, title="Call grandma")

    stored = server_todos(radicale, calendar_name)
    assert set(stored) == {"Buy milk", "Renew passport", "Call grandma"}
    milk = stored["Buy milk"]
    assert milk.get("due").params.get("TZID") == "Europe/Madrid"
    assert milk.get("due").dt.astimezone(UTC) == datetime(2026, 3, 2, 17, 0, tzinfo=UTC)

    listed = (await call(tasks, "list_tasks", ctx)).splitlines()
    assert listed[0] == "Open tasks:"
    assert "Renew passport" in listed[1] and "(overdue)" in listed[1]
    assert "Buy milk" in listed[2] and "overdue" not in listed[2]
    assert "Call grandma" in listed[3]

    milk_id = str(milk.get("uid"))
    assert "Completed" in await call(tasks, "complete_task", ctx, task_id=milk_id)
    assert "Buy milk" not in await call(tasks, "list_tasks", ctx)
    everything = await call(tasks, "list_tasks", ctx, include_completed=True)
    assert "Buy milk" in everything and "done" in everything
    assert str(server_todos(radicale, calendar_name)["Buy milk"].get("status")) == "COMPLETED"
    with pytest.raises(ToolError, match="already completed"):
        await call(tasks, "complete_task", ctx, task_id=milk_id)
    with pytest.raises(ToolError, match="no task with id"):
        await call(tasks, "complete_task", ctx, task_id="missing")


async def test_delete_task_needs_approval_and_checks_the_title(
        tasks: TasksSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    ctx = context(db, clock)
    await call(tasks, "create_task", ctx, title="Old chore")
    uid = str(server_todos(radicale, calendar_name)["Old chore"].get("uid"))
    delete = bound(tasks, "delete_task")
    args = delete.parse({"task_id": uid, "title": "Old chore"})
    assert Policy().decide(delete, args) is Decision.REQUIRE_APPROVAL
    assert "Old chore" in delete.describe(args)
    with pytest.raises(ToolError, match="nothing was deleted"):
        await delete.invoke(delete.parse({"task_id": uid, "title": "Something else"}), ctx)
    assert "Old chore" in server_todos(radicale, calendar_name)
    assert "Deleted" in await delete.invoke(args, ctx)
    assert server_todos(radicale, calendar_name) == {}


async def test_separate_task_list(radicale: RadicaleServer, caldav_settings: CalDAVSettings,
                                  calendar_name: str, db: Database, clock: ManualClock) -> None:
    chores = f"Chores {calendar_name}"
    radicale.make_calendar(chores, ["VTODO"])
    settings = caldav_settings.model_copy(update={"task_list": chores})
    skill = TasksSkill(CalDAVStore(settings, now=clock.now), Scheduler(db, clock))
    await call(skill, "create_task", context(db, clock), title="Water plants")
    assert "Water plants" in server_todos(radicale, chores)
    assert "Water plants" not in server_todos(radicale, calendar_name)


def test_task_policies(tasks: TasksSkill) -> None:
    policy = Policy()
    listing = bound(tasks, "list_tasks")
    assert policy.decide(listing, listing.parse({})) is Decision.ALLOW
    assert listing.spec.untrusted_output  # a shared list carries other people's text
    create = bound(tasks, "create_task")
    assert policy.decide(create, create.parse({"title": "x"})) is Decision.NOTIFY
    complete = bound(tasks, "complete_task")
    assert policy.decide(complete, complete.parse({"task_id": "x"})) is Decision.NOTIFY


async def test_completing_a_repeating_task_moves_it_to_the_next_time(
        tasks: TasksSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    radicale.add_event(calendar_name, (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//\r\nBEGIN:VTODO\r\nUID:bins\r\n"
        "DTSTAMP:20260301T000000Z\r\nSUMMARY:Bins out\r\n"
        "DTSTART;TZID=Europe/Madrid:20260323T200000\r\nDUE;TZID=Europe/Madrid:20260323T210000\r\n"
        "RRULE:FREQ=WEEKLY;COUNT=2\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"))
    ctx = context(db, clock)
    first = await call(tasks, "complete_task", ctx, task_id="bins")
    # Across the DST change (29 March) the wall-clock time stays 21:00.
    assert first == "Completed this time: “Bins out” repeats; next due Mon 2026-03-30 21:00."
    [stored] = radicale.todos(calendar_name)
    assert stored.get("due").dt.astimezone(UTC) == datetime(2026, 3, 30, 19, 0, tzinfo=UTC)
    assert str(stored.get("status")) == "NEEDS-ACTION"
    assert "Bins out" in await call(tasks, "list_tasks", ctx)
    # COUNT=2: the second completion ends the series.
    assert await call(tasks, "complete_task", ctx, task_id="bins") == "Completed: “Bins out”."
    assert await call(tasks, "list_tasks", ctx) == "No open tasks."
