"""The morning briefing, wired as the app does: real Radicale, real scheduler, a local weather peer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.briefing import Briefing
from bot.clock import ManualClock
from bot.config import CalDAVSettings, Settings
from bot.core.assistant import Assistant
from bot.core.events import Location, LocationSource, MessageKind
from bot.scheduler import Scheduler
from memory.db import Database
from tests.skills.conftest import WeatherPeer
from tests.skills.helpers import call, context, install_day
from tests.support import OWNER, RecordingMessenger, build_assistant, make_settings
from tools.registry import Skill

# The clock fixture starts on Monday 2026-03-02 09:00 in Madrid; the briefing is at 07:30.
TUESDAY_0730 = datetime(2026, 3, 3, 6, 30, 5, tzinfo=UTC)


def day_settings(tmp_path: Path, caldav: CalDAVSettings | None, weather: WeatherPeer,
                 **briefing: Any) -> Settings:
    caldav_values = ({"url": caldav.url, "username": caldav.username, "password": caldav.password,
                      "calendar": caldav.calendar} if caldav is not None else {"url": None})
    return make_settings(
        tmp_path,
        caldav=caldav_values,
        briefing={"hour": 7, "minute": 30, "home_lat": 40.4165, "home_lon": -3.7026, **briefing},
        environment={"open_meteo_url": weather.url},
    )


async def setup_day(settings: Settings, db: Database, clock: ManualClock,
                    http: httpx.AsyncClient) -> tuple[Assistant, RecordingMessenger, Scheduler, Briefing]:
    assistant, messenger = await build_assistant(settings, db, clock, with_model=False)
    await assistant.chats.seen(OWNER, clock.now())
    scheduler = Scheduler(db, clock)
    briefing = await install_day(assistant, scheduler, settings, http)
    assert await scheduler.tick() == []  # first sight of the daily job: nothing replayed
    return assistant, messenger, scheduler, briefing


def skill_of(assistant: Assistant, tool_name: str) -> Skill:
    bound = assistant.deps.registry.get(tool_name)
    assert bound is not None and bound.owner is not None
    return bound.owner


def briefings(messenger: RecordingMessenger) -> list[str]:
    return [m.text for _, m in messenger.sent if m.kind is MessageKind.SCHEDULED]


async def test_briefing_has_agenda_tasks_and_weather(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    weather_peer.payload["daily"]["time"] = ["2026-03-03"]
    settings = day_settings(tmp_path, caldav_settings, weather_peer)
    assistant, messenger, scheduler, _ = await setup_day(settings, db, clock, http)
    ctx = context(db, clock)
    agenda, tasks = skill_of(assistant, "create_event"), skill_of(assistant, "create_task")
    await call(agenda, "create_event", ctx, title="Dentist", start="2026-03-03T10:00", location="Clínica Sol")
    await call(agenda, "create_event", ctx, title="Team offsite", start="2026-03-03")
    await call(agenda, "create_event", ctx, title="Not today", start="2026-03-04T10:00")
    await call(tasks, "create_task", ctx, title="Buy milk", due="2026-03-03")
    await call(tasks, "create_task", ctx, title="Renew passport", due="2026-03-01")

    clock.set(datetime(2026, 3, 3, 6, 29, tzinfo=UTC))
    assert await scheduler.tick() == []
    clock.set(TUESDAY_0730)
    assert await scheduler.tick() == ["morning-briefing"]
    [text] = briefings(messenger)
    print("\n--- sample briefing ---\n" + text + "\n---")
    assert text.startswith("☀️ **Good morning.** Today is Tuesday, March 3.")
    assert "- 10:00–11:00 Dentist (Clínica Sol)" in text
    assert "- All day: Team offsite" in text
    assert "Not today" not in text
    assert "- Buy milk (due today)" in text
    assert "- Renew passport (due 2026-03-01) ⚠️ overdue" in text
    assert "Home: partly cloudy, 6–17 °C, rain 20%, now 9 °C" in text
    assert text.index("**Agenda**") < text.index("**Tasks**") < text.index("**Weather**")
    [query] = weather_peer.queries
    assert query["latitude"] == "40.41650" and query["longitude"] == "-3.70260"

    # Same day again: no second briefing.
    clock.set(datetime(2026, 3, 3, 9, 0, tzinfo=UTC))
    assert await scheduler.tick() == []
    assert len(briefings(messenger)) == 1


async def test_weather_where_the_user_is_when_the_location_is_recent(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, caldav_settings, weather_peer)
    assistant, _, _, briefing = await setup_day(settings, db, clock, http)
    await assistant.locations.update(OWNER.user_key, Location(
        48.8566, 2.3522, clock.now(), LocationSource.PIN, label="Paris"))
    text = await briefing.compose(OWNER.user_key, clock.now())
    assert text is not None and "Paris: partly cloudy" in text
    assert weather_peer.queries[-1]["latitude"] == "48.85660"


async def test_empty_day_is_skipped_when_the_user_prefers(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, caldav_settings, weather_peer, skip_empty=True)
    _, messenger, scheduler, _ = await setup_day(settings, db, clock, http)
    clock.set(TUESDAY_0730)
    assert await scheduler.tick() == ["morning-briefing"]
    assert briefings(messenger) == []  # weather alone is not worth a message


async def test_empty_day_is_posted_by_default(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, caldav_settings, weather_peer)
    _, messenger, scheduler, _ = await setup_day(settings, db, clock, http)
    clock.set(TUESDAY_0730)
    await scheduler.tick()
    [text] = briefings(messenger)
    assert "Nothing on the agenda and no open tasks today." in text
    assert "**Weather**" in text and "**Agenda**" not in text


async def test_extra_sections_and_a_failing_section(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, caldav_settings, weather_peer, skip_empty=True)
    _, messenger, scheduler, briefing = await setup_day(settings, db, clock, http)
    seen: list[tuple[str, datetime]] = []

    async def inbox(user_key: str, local_now: datetime) -> str | None:
        seen.append((user_key, local_now))
        return "3 new notifications: backup finished, …"

    briefing.add_section("Inbox", inbox)
    with pytest.raises(ValueError, match="already has a section"):
        briefing.add_section("Inbox", inbox)
    weather_peer.payload = {"error": True, "reason": "quota exceeded"}
    clock.set(TUESDAY_0730)
    await scheduler.tick()
    [text] = briefings(messenger)
    assert "**Inbox**\n3 new notifications" in text
    assert "**Weather**\n_unavailable: the weather service refused: quota exceeded_" in text
    assert seen[0][0] == OWNER.user_key
    assert seen[0][1].tzinfo is not None and seen[0][1].utcoffset() is not None
    assert (seen[0][1].hour, seen[0][1].minute) == (7, 30)


async def test_calendar_down_is_reported_not_fatal(
        tmp_path: Path, db: Database, clock: ManualClock, caldav_settings: CalDAVSettings,
        weather_peer: WeatherPeer, http: httpx.AsyncClient) -> None:
    down = caldav_settings.model_copy(update={"url": "http://127.0.0.1:9/"})
    settings = day_settings(tmp_path, down, weather_peer)
    _, messenger, scheduler, _ = await setup_day(settings, db, clock, http)
    clock.set(TUESDAY_0730)
    await scheduler.tick()
    [text] = briefings(messenger)
    assert "**Agenda**\n_unavailable: could not list events: the calendar server at" in text
    assert "**Weather**" in text


async def test_without_caldav_only_reminders_and_weather(
        tmp_path: Path, db: Database, clock: ManualClock, weather_peer: WeatherPeer,
        http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, None, weather_peer)
    assistant, _, _, briefing = await setup_day(settings, db, clock, http)
    names = {tool.name for tool in assistant.deps.registry}
    assert {"set_reminder", "list_reminders", "cancel_reminder"} <= names
    assert not names & {"list_events", "create_event", "list_tasks", "create_task"}
    assert briefing.section_names == ["Weather"]


async def test_spanish_briefing(tmp_path: Path, db: Database, clock: ManualClock,
                                caldav_settings: CalDAVSettings, weather_peer: WeatherPeer,
                                http: httpx.AsyncClient) -> None:
    settings = day_settings(tmp_path, caldav_settings, weather_peer)
    settings = settings.model_copy(update={"core": settings.core.model_copy(update={"language": "es"})})
    assistant, _, _, briefing = await setup_day(settings, db, clock, http)
    await call(skill_of(assistant, "create_task"), "create_task", context(db, clock), title="Comprar pan",
               due="2026-03-02")
    text = await briefing.compose(OWNER.user_key, clock.now().astimezone(settings.core.zone))
    assert text is not None
    assert text.startswith("☀️ **Buenos días.** Hoy es lunes, 2 de marzo.")
    assert "**Tareas**\n- Comprar pan (para hoy)" in text and "Casa: partly cloudy" in text
