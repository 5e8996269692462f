"""The agenda skill against a real Radicale: ranges, recurrences, time zones, all-day, approvals."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar
import pytest
from pydantic import SecretStr

from bot.clock import ManualClock
from bot.config import CalDAVSettings
from bot.errors import ToolError
from memory.db import Database
from tests.skills.conftest import RadicaleServer
from tests.skills.helpers import MADRID, bound, call, context
from tools.caldav import CalDAVStore
from tools.policy import Policy
from tools.registry import Decision
from tools.skills.agenda import AgendaSkill


def server_events(radicale: RadicaleServer, calendar_name: str) -> list[icalendar.Component]:
    return radicale.events(calendar_name)


def put_raw(radicale: RadicaleServer, calendar_name: str, ics: str) -> None:
    radicale.add_event(calendar_name, ics)


@pytest.fixture
def agenda(caldav_settings: CalDAVSettings, clock: ManualClock) -> AgendaSkill:
    return AgendaSkill(CalDAVStore(caldav_settings, now=clock.now))


async def test_create_timed_event_stores_user_zone_and_lists_it(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    ctx = context(db, clock)
    created = await call(agenda, "create_event", ctx, title="Dentist", start="2026-03-03T10:00",
                         location="Clínica Sol")
    assert "Dentist" in created and "10:00–11:00" in created
    [stored] = server_events(radicale, calendar_name)
    start = stored.get("dtstart")
    assert start.params.get("TZID") == "Europe/Madrid"
    assert start.dt.astimezone(UTC) == datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    assert stored.get("dtend").dt.astimezone(UTC) == datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
    assert str(stored.get("location")) == "Clínica Sol"

    listed = await call(agenda, "list_events", ctx, start="2026-03-03")
    assert "Tue 2026-03-03 10:00–11:00" in listed and "“Dentist”" in listed and "Clínica Sol" in listed
    assert f"id: {stored.get('uid')}" in listed
    assert "No events" in await call(agenda, "list_events", ctx, start="2026-03-04")


async def test_event_from_another_zone_is_shown_in_the_users_zone(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    event = icalendar.Event()
    event.add("uid", "ny-call")
    event.add("dtstamp", datetime(2026, 3, 1, tzinfo=UTC))
    event.add("summary", "Call with New York")
    event.add("dtstart", datetime(2026, 3, 3, 9, 0, tzinfo=ZoneInfo("America/New_York")))
    event.add("dtend", datetime(2026, 3, 3, 10, 0, tzinfo=ZoneInfo("America/New_York")))
    document = icalendar.Calendar()
    document.add("prodid", "-//test//")
    document.add("version", "2.0")
    document.add_component(event)
    document.add_missing_timezones()
    put_raw(radicale, calendar_name, document.to_ical().decode())

    listed = await call(agenda, "list_events", context(db, clock), start="2026-03-03")
    # 09:00 in New York (EST, UTC-5) is 15:00 in Madrid (CET, UTC+1).
    assert "Tue 2026-03-03 15:00–16:00" in listed and "Call with New York" in listed
    tokyo = await call(agenda, "list_events", context(db, clock, ZoneInfo("Asia/Tokyo")), start="2026-03-03",
                       end="2026-03-04")
    assert "Tue 2026-03-03 23:00–00:00" not in tokyo  # spans midnight there: shown with both dates
    assert "Tue 2026-03-03 23:00 to Wed 2026-03-04 00:00" in tokyo


async def test_all_day_events_are_dates_with_inclusive_end(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    ctx = context(db, clock)
    one = await call(agenda, "create_event", ctx, title="Holiday", start="2026-03-05")
    assert "Thu 2026-03-05 (all day)" in one
    trip = await call(agenda, "create_event", ctx, title="Trip", start="2026-03-10", end="2026-03-12")
    assert "Tue 2026-03-10 to Thu 2026-03-12 (all day)" in trip
    stored = {str(c.get("summary")): c for c in server_events(radicale, calendar_name)}
    assert stored["Holiday"].get("dtstart").dt == date(2026, 3, 5)
    assert stored["Holiday"].get("dtend").dt == date(2026, 3, 6)  # exclusive on the server
    assert stored["Trip"].get("dtend").dt == date(2026, 3, 13)

    assert "Holiday" in await call(agenda, "list_events", ctx, start="2026-03-05")
    assert "No events" in await call(agenda, "list_events", ctx, start="2026-03-06")
    assert "Trip" in await call(agenda, "list_events", ctx, start="2026-03-12")
    assert "No events" in await call(agenda, "list_events", ctx, start="2026-03-13")
    # Late evening of the day before, in the user's zone, is not the all-day event.
    evening = await call(agenda, "list_events", ctx, start="2026-03-04T20:00", end="2026-03-04T23:59")
    assert "Holiday" not in evening


async def test_recurring_events_are_expanded_in_a_range(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    event = icalendar.Event()
    event.add("uid", "yoga-weekly")
    event.add("dtstamp", datetime(2026, 3, 1, tzinfo=UTC))
    event.add("summary", "Yoga")
    event.add("dtstart", datetime(2026, 3, 2, 19, 0, tzinfo=MADRID))
    event.add("dtend", datetime(2026, 3, 2, 20, 0, tzinfo=MADRID))
    event.add("rrule", {"FREQ": "WEEKLY", "COUNT": 10})
    document = icalendar.Calendar()
    document.add("prodid", "-//test//")
    document.add("version", "2.0")
    document.add_component(event)
    document.add_missing_timezones()
    put_raw(radicale, calendar_name, document.to_ical().decode())

    listed = await call(agenda, "list_events", context(db, clock), start="2026-03-01", end="2026-04-05")
    lines = [line for line in listed.splitlines() if "Yoga" in line]
    assert len(lines) == 5
    assert "Mon 2026-03-02 19:00–20:00" in lines[0] and "repeats" in lines[0]
    # Across the DST change (29 March) the wall-clock time stays 19:00.
    assert "Mon 2026-03-30 19:00–20:00" in lines[-1]


async def test_check_availability(agenda: AgendaSkill, db: Database, clock: ManualClock) -> None:
    ctx = context(db, clock)
    await call(agenda, "create_event", ctx, title="Standup", start="2026-03-03T09:00", end="2026-03-03T09:30")
    await call(agenda, "create_event", ctx, title="Festival", start="2026-03-03")
    busy = await call(agenda, "check_availability", ctx, start="2026-03-03T09:15", end="2026-03-03T10:00")
    assert busy.startswith("Busy") and "Standup" in busy
    assert "All-day events" in busy and "Festival" in busy
    free = await call(agenda, "check_availability", ctx, start="2026-03-03T09:30", end="2026-03-03T10:30")
    assert free.startswith("Free") and "Standup" not in free
    with pytest.raises(ToolError, match="after its start"):
        await call(agenda, "check_availability", ctx, start="2026-03-03T10:00", end="2026-03-03T09:00")


async def test_update_moves_an_event_keeping_its_length(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    ctx = context(db, clock)
    await call(agenda, "create_event", ctx, title="Review", start="2026-03-03T10:00", end="2026-03-03T11:30")
    uid = str(server_events(radicale, calendar_name)[0].get("uid"))
    updated = await call(agenda, "update_event", ctx, event_id=uid, start="2026-03-04T16:00",
                         title="Design review")
    assert "Wed 2026-03-04 16:00–17:30" in updated and "Design review" in updated
    [stored] = server_events(radicale, calendar_name)
    assert str(stored.get("summary")) == "Design review"
    assert stored.get("dtstart").dt.astimezone(UTC) == datetime(2026, 3, 4, 15, 0, tzinfo=UTC)
    assert stored.get("dtend").dt.astimezone(UTC) == datetime(2026, 3, 4, 16, 30, tzinfo=UTC)
    with pytest.raises(ToolError, match="no event with id"):
        await call(agenda, "update_event", ctx, event_id="nope", title="x")
    with pytest.raises(ToolError, match="nothing to change"):
        await call(agenda, "update_event", ctx, event_id=uid)


async def test_delete_needs_approval_showing_the_event_and_checks_it(
        agenda: AgendaSkill, db: Database, clock: ManualClock, radicale: RadicaleServer,
        calendar_name: str) -> None:
    ctx = context(db, clock)
    await call(agenda, "create_event", ctx, title="Dentist", start="2026-03-03T10:00")
    uid = str(server_events(radicale, calendar_name)[0].get("uid"))
    delete = bound(agenda, "delete_event")
    args = delete.parse({"event_id": uid, "title": "Dentist", "start": "2026-03-03T10:00",
                         "end": "2026-03-03T11:00"})
    assert Policy().decide(delete, args) is Decision.REQUIRE_APPROVAL
    shown = delete.describe(args)
    assert shown == f"Delete the calendar event “Dentist” (Tue 2026-03-03 10:00 → Tue 2026-03-03 11:00) [id {uid}]"

    wrong = delete.parse({"event_id": uid, "title": "Dinner", "start": "2026-03-03T10:00",
                          "end": "2026-03-03T11:00"})
    with pytest.raises(ToolError, match="does not match"):
        await delete.invoke(wrong, ctx)
    assert len(server_events(radicale, calendar_name)) == 1

    result = await delete.invoke(args, ctx)
    assert "Deleted" in result and "Dentist" in result
    assert server_events(radicale, calendar_name) == []


def test_policies_by_tool(agenda: AgendaSkill) -> None:
    policy = Policy()
    reads = {"list_events": {"start": "2026-03-03"},
             "check_availability": {"start": "2026-03-03T10:00", "end": "2026-03-03T11:00"}}
    for name, arguments in reads.items():
        tool = bound(agenda, name)
        assert policy.decide(tool, tool.parse(arguments)) is Decision.ALLOW
    create = bound(agenda, "create_event")
    assert policy.decide(create, create.parse({"title": "x", "start": "2026-03-03"})) is Decision.NOTIFY
    update = bound(agenda, "update_event")
    assert policy.decide(update, update.parse({"event_id": "u", "title": "y"})) is Decision.NOTIFY


async def test_bad_times_are_clear_errors(agenda: AgendaSkill, db: Database, clock: ManualClock,
                                          radicale: RadicaleServer, calendar_name: str) -> None:
    ctx = context(db, clock)
    with pytest.raises(ToolError, match="YYYY-MM-DD"):
        await call(agenda, "create_event", ctx, title="x", start="tomorrow at 5")
    with pytest.raises(ToolError, match="both be times"):
        await call(agenda, "create_event", ctx, title="x", start="2026-03-03T10:00", end="2026-03-04")
    with pytest.raises(ToolError, match="after the start"):
        await call(agenda, "create_event", ctx, title="x", start="2026-03-03T10:00", end="2026-03-03T09:00")
    assert server_events(radicale, calendar_name) == []


async def test_wrong_password_unknown_calendar_and_unreachable_server(
        caldav_settings: CalDAVSettings, db: Database, clock: ManualClock) -> None:
    ctx = context(db, clock)
    bad_login = caldav_settings.model_copy(update={"password": SecretStr("wrong")})
    with pytest.raises(ToolError, match="CALDAV_USERNAME and CALDAV_PASSWORD") as refused:
        await call(AgendaSkill(CalDAVStore(bad_login)), "list_events", ctx, start="2026-03-03")
    assert "wrong" not in str(refused.value)

    missing = caldav_settings.model_copy(update={"calendar": "Nope"})
    with pytest.raises(ToolError, match=f"named 'Nope'.*{caldav_settings.calendar}"):
        await call(AgendaSkill(CalDAVStore(missing)), "list_events", ctx, start="2026-03-03")

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    down = caldav_settings.model_copy(update={"url": f"http://owner:topsecret@127.0.0.1:{closed_port}/dav/"})
    with pytest.raises(ToolError, match="unreachable") as unreachable:
        await call(AgendaSkill(CalDAVStore(down)), "list_events", ctx, start="2026-03-03")
    assert f"at http://127.0.0.1:{closed_port}/dav/ is unreachable" in str(unreachable.value)
    assert "topsecret" not in str(unreachable.value)


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers: the timeout must fire."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


async def test_a_server_that_never_answers_times_out(
        caldav_settings: CalDAVSettings, silent_server: str, db: Database, clock: ManualClock) -> None:
    hung = caldav_settings.model_copy(update={"url": silent_server, "timeout_seconds": 0.5})
    with pytest.raises(ToolError, match=r"did not answer within 0\.5 s"):
        await asyncio.wait_for(
            call(AgendaSkill(CalDAVStore(hung)), "list_events", context(db, clock), start="2026-03-03"), 20)


def test_range_guard() -> None:
    from tools.skills.agenda import _range

    start, end = _range("2026-03-29", None, MADRID)
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=23)  # the DST day is short
    with pytest.raises(ToolError, match="longer than a year"):
        _range("2026-01-01", "2027-06-01", MADRID)
