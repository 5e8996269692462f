"""Fixtures for the skill tests: fake environment/web services, a notes folder, a context,
a real Radicale calendar per test and a local weather peer."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp import web
from pydantic import SecretStr

from bot.clock import ManualClock
from bot.config import CalDAVSettings, EnvironmentSettings, NotesSettings, WebSettings
from bot.core.events import Location, LocationSource
from memory.db import Database
from memory.locations import LocationStore
from tests.peers import RadicaleServer
from tests.skills.fakes import SOL, FakeServices
from tests.support import OWNER
from tools.context import ToolContext
from tools.registry import BoundTool, Skill


@pytest.fixture
async def services() -> AsyncIterator[FakeServices]:
    fake = FakeServices()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def env_settings(services: FakeServices) -> EnvironmentSettings:
    return EnvironmentSettings(
        _env_file=None,  # type: ignore[call-arg]
        open_meteo_url=services.open_meteo_url,
        nominatim_url=services.nominatim_url,
        overpass_url=services.overpass_url,
        user_agent="Mayordomo-tests/1.0 (owner@example.org)",
        timeout_seconds=0.5,
        overpass_timeout_seconds=1,
        # The manual clock never moves by itself; the limiter has its own test.
        nominatim_interval_seconds=0,
    )


@pytest.fixture
def web_settings(services: FakeServices) -> WebSettings:
    return WebSettings(
        _env_file=None,  # type: ignore[call-arg]
        searxng_url=services.searxng_url,
        timeout_seconds=0.5,
        allow_private_addresses=True,
        fetch_max_bytes=50_000,
        fetch_max_chars=2_000,
    )


@pytest.fixture
def notes_settings(tmp_path: Path) -> NotesSettings:
    folder = tmp_path / "vault"
    folder.mkdir()
    return NotesSettings(_env_file=None, folder=folder, max_note_bytes=2_000, max_results=5)  # type: ignore[call-arg]


@pytest.fixture
def ctx(db: Database, clock: ManualClock) -> ToolContext:
    return ToolContext(
        chat=OWNER,
        clock=clock,
        timezone=ZoneInfo("Europe/Madrid"),
        locations=LocationStore(db),
        location_max_age=timedelta(minutes=60),
    )


async def share_location(
    ctx: ToolContext, clock: ManualClock, *, minutes_ago: float = 2, at: tuple[float, float] = SOL
) -> None:
    await ctx.locations.update(
        ctx.user_key,
        Location(at[0], at[1], clock.now() - timedelta(minutes=minutes_ago), LocationSource.PIN, 15.0),
    )


def tool_of(skill: Skill, name: str) -> BoundTool:
    for bound in skill.tools():
        if bound.name == name:
            return bound
    raise AssertionError(f"{skill.id} has no tool {name}")


async def run_tool(skill: Skill, name: str, ctx: ToolContext, **arguments: Any) -> Any:
    """Parse the arguments as the model would send them, then invoke the tool."""
    bound = tool_of(skill, name)
    return await bound.invoke(bound.parse(arguments), ctx)



@pytest.fixture
def calendar_name(radicale: RadicaleServer) -> str:
    """A fresh calendar (events and to-dos) for this test only."""
    name = f"Test {uuid.uuid4().hex[:8]}"
    radicale.make_calendar(name)
    return name


@pytest.fixture
def caldav_settings(radicale: RadicaleServer, calendar_name: str) -> CalDAVSettings:
    return CalDAVSettings(_env_file=None, url=radicale.url, username=radicale.username,  # type: ignore[call-arg]
                          password=SecretStr(radicale.password), calendar=calendar_name, timeout_seconds=10)


@dataclass
class WeatherPeer:
    """A local HTTP server answering like Open-Meteo's /v1/forecast; records the queries."""

    url: str
    queries: list[dict[str, str]]
    payload: dict[str, Any]


def open_meteo_payload(day: str, code: int = 2, low: float = 6.0, high: float = 17.0,
                       rain: float = 20.0, now_temp: float = 9.0) -> dict[str, Any]:
    return {
        "latitude": 40.4165, "longitude": -3.7026, "timezone": "Europe/Madrid",
        "current": {"time": f"{day}T07:30", "temperature_2m": now_temp, "apparent_temperature": now_temp - 1,
                    "relative_humidity_2m": 70, "precipitation": 0.0, "weather_code": code,
                    "wind_speed_10m": 8.0},
        "daily": {"time": [day], "weather_code": [code], "temperature_2m_max": [high],
                  "temperature_2m_min": [low], "precipitation_sum": [0.0],
                  "precipitation_probability_max": [rain], "wind_speed_10m_max": [15.0]},
    }


@pytest.fixture
async def weather_peer() -> AsyncIterator[WeatherPeer]:
    peer = WeatherPeer(url="", queries=[], payload=open_meteo_payload("2026-03-02"))

    async def forecast(request: web.Request) -> web.Response:
        peer.queries.append(dict(request.query))
        return web.json_response(peer.payload)

    app = web.Application()
    app.router.add_get("/v1/forecast", forecast)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    peer.url = f"http://127.0.0.1:{port}/v1/forecast"
    yield peer
    await runner.cleanup()
