"""A real Radicale CalDAV server for the session, a fresh calendar per test, a local weather peer."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web
from pydantic import SecretStr

from bot.config import CalDAVSettings
from tests.peers import RadicaleServer


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
