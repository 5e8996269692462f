"""End to end through the scripted model: create an event, delete one with approval (yes and no)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from bot.clock import ManualClock
from bot.config import CalDAVSettings
from bot.core.approvals import ApprovalOutcome
from bot.core.assistant import Assistant
from bot.core.events import MessageKind, TextMessage
from bot.scheduler import Scheduler
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.skills.conftest import RadicaleServer, WeatherPeer
from tests.skills.helpers import install_day
from tests.support import OWNER, RecordingMessenger, build_assistant, make_settings


def stored_titles(radicale: RadicaleServer, calendar_name: str) -> dict[str, str]:
    """Title -> UID of every event Radicale holds in the test calendar."""
    return {str(event.get("summary")): str(event.get("uid")) for event in radicale.events(calendar_name)}


def put_event(radicale: RadicaleServer, calendar_name: str, uid: str, title: str, start: str, end: str) -> None:
    radicale.add_event(calendar_name, (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//\r\nBEGIN:VEVENT\r\n"
        f"UID:{uid}\r\nDTSTAMP:20260301T000000Z\r\nSUMMARY:{title}\r\n"
        f"DTSTART:{start}\r\nDTEND:{end}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))


async def day_assistant(tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel,
                        caldav_settings: CalDAVSettings, weather_peer: WeatherPeer,
                        http: httpx.AsyncClient, approve: bool | None) -> tuple[Assistant, RecordingMessenger]:
    settings = make_settings(
        tmp_path, model.base_url,
        caldav={"url": caldav_settings.url, "username": caldav_settings.username,
                "password": caldav_settings.password, "calendar": caldav_settings.calendar},
        environment={"open_meteo_url": weather_peer.url},
    )
    assistant, messenger = await build_assistant(settings, db, clock,
                                                 messenger=RecordingMessenger(auto_decide=approve))
    await install_day(assistant, Scheduler(db, clock), settings, http)
    return assistant, messenger


def tool_results(model: ScriptedModel) -> list[str]:
    """The tool messages the model received in its last request."""
    last = model.requests[-1]
    return [m["content"] for m in last["messages"] if m.get("role") == "tool"]


async def test_create_an_event_from_chat(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel,
        caldav_settings: CalDAVSettings, weather_peer: WeatherPeer, http: httpx.AsyncClient,
        radicale: RadicaleServer) -> None:
    assistant, messenger = await day_assistant(tmp_path, db, clock, model, caldav_settings, weather_peer,
                                               http, approve=None)
    model.call("create_event", title="Dentist", start="2026-03-03T10:00", location="Clínica Sol")
    model.respond("Created “Dentist” on Tue 2026-03-03 10:00–11:00 at Clínica Sol.")
    await assistant.handle(TextMessage(OWNER, "Put the dentist tomorrow at 10:00 at Clínica Sol"))

    assert "Dentist" in stored_titles(radicale, caldav_settings.calendar)
    tools_offered = {t["function"]["name"] for t in model.requests[0]["tools"]}
    assert {"list_events", "create_event", "delete_event", "set_reminder"} <= tools_offered
    [result] = tool_results(model)
    assert result.startswith("Created: - Tue 2026-03-03 10:00–11:00")
    notices = [m.text for _, m in messenger.sent if m.kind is MessageKind.NOTICE]
    assert any("Create the calendar event “Dentist”" in n for n in notices)  # writes notify
    assert messenger.texts[-1] == "Created “Dentist” on Tue 2026-03-03 10:00–11:00 at Clínica Sol."
    assert messenger.approvals == []


@pytest.mark.parametrize("approve", [True, False])
async def test_delete_an_event_with_approval(
        approve: bool, tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel,
        caldav_settings: CalDAVSettings, weather_peer: WeatherPeer, http: httpx.AsyncClient,
        radicale: RadicaleServer) -> None:
    calendar = caldav_settings.calendar
    put_event(radicale, calendar, "gym-1", "Gym", "20260303T170000Z", "20260303T180000Z")
    assistant, messenger = await day_assistant(tmp_path, db, clock, model, caldav_settings, weather_peer,
                                               http, approve=approve)
    model.call("list_events", start="2026-03-03")
    model.call("delete_event", event_id="gym-1", title="Gym", start="2026-03-03T18:00", end="2026-03-03T19:00")
    if approve:
        model.respond("I've deleted “Gym” (Tue 2026-03-03 18:00–19:00).")
    else:
        model.respond("Okay, I did not delete “Gym”; it stays on Tue 2026-03-03 18:00–19:00.")
    await assistant.handle(TextMessage(OWNER, "Cancel my gym tomorrow"))

    [request] = messenger.approvals
    assert request.tool == "delete_event"
    assert "“Gym”" in request.description
    assert "(Tue 2026-03-03 18:00 → Tue 2026-03-03 19:00)" in request.description
    [(_, outcome)] = messenger.outcomes
    titles = stored_titles(radicale, calendar)
    results = tool_results(model)
    assert "Gym" in results[0] and "id: gym-1" in results[0]
    if approve:
        assert outcome is ApprovalOutcome.APPROVED
        assert "Gym" not in titles
        assert results[1].startswith("Deleted: “Gym”")
        assert messenger.texts[-1].startswith("I've deleted “Gym”")
    else:
        assert outcome is ApprovalOutcome.DENIED
        assert titles == {"Gym": "gym-1"}
        assert results[1].startswith("NOT DONE")
        assert "did not delete" in messenger.texts[-1]
    stored_args = json.loads(request.arguments)
    assert stored_args["event_id"] == "gym-1"
    assert clock.now() == datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
