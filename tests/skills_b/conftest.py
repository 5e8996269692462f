"""A real Radicale CalDAV server for the session, a fresh calendar per test, a local weather peer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from caldav.davclient import DAVClient
from pydantic import SecretStr

from bot.config import CalDAVSettings

USER = "owner"
PASSWORD = "radicale-test-secret"


@dataclass(frozen=True)
class RadicaleServer:
    url: str
    username: str
    password: str

    def client(self) -> DAVClient:
        return DAVClient(url=self.url, username=self.username, password=self.password, timeout=10)

    def make_calendar(self, name: str, components: list[str] | None = None) -> None:
        with self.client() as client:
            principal = client.get_principal()
            principal.make_calendar(name=name, supported_calendar_component_set=components)

    # What the server really holds, read with the library's sync client (independent of our code).
    def events(self, name: str) -> list[Any]:
        """The VEVENT components stored in the calendar `name`."""
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            return [obj.icalendar_component for obj in calendar.get_events()]

    def todos(self, name: str) -> list[Any]:
        """Every VTODO component (completed too) in the calendar `name`."""
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            return [obj.icalendar_component for obj in calendar.search(todo=True, include_completed=True)]

    def add_event(self, name: str, ics: str) -> None:
        with self.client() as client:
            calendar: Any = client.get_principal().calendar(name=name)
            calendar.add_event(ics)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """`python -m radicale` on 127.0.0.1 with htpasswd (plain) auth and no auth delay."""
    try:
        import radicale as _radicale  # noqa: F401
    except ImportError:
        reason = "Radicale is not installed (pip install radicale)"
        if _ci():
            pytest.fail(reason + " and CI is set", pytrace=False)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("radicale")
    users = folder / "users"
    users.write_text(f"{USER}:{PASSWORD}\n")
    port = _free_port()
    log_path = folder / "radicale.log"
    command = [
        sys.executable, "-m", "radicale", "--config", "",
        "--server-hosts", f"127.0.0.1:{port}",
        "--storage-filesystem-folder", str(folder / "collections"),
        "--auth-type", "htpasswd", "--auth-htpasswd-filename", str(users),
        "--auth-htpasswd-encryption", "plain", "--auth-delay", "0",
        "--logging-level", "warning",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(port, process, log_path)
            yield RadicaleServer(f"http://127.0.0.1:{port}/", USER, PASSWORD)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Radicale exited with {process.returncode}: {log_path.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"Radicale did not listen on {port} within 30 s: {log_path.read_text()[-2000:]}")


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
