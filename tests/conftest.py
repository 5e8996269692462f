"""Fixtures every test folder can use: a manual clock, a real SQLite file, the scripted model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from bot.clock import ManualClock
from memory.db import Database
from tests.process import BotProcess
from tests.scripted_model import ScriptedModel

pytest_plugins = ["tests.peers"]


@pytest.fixture
def clock() -> ManualClock:
    # A Monday morning in Madrid (08:00 UTC = 09:00 CET).
    return ManualClock(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "mayordomo.sqlite3")
    yield database
    await database.close()


@pytest.fixture
async def model() -> AsyncIterator[ScriptedModel]:
    scripted = ScriptedModel()
    await scripted.start()
    yield scripted
    await scripted.stop()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client for skills under test (no base URL, default timeouts)."""
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
async def bots() -> AsyncIterator[list[BotProcess]]:
    """Bot processes a test starts; each is stopped (killed if it must be) when the test ends."""
    started: list[BotProcess] = []
    yield started
    for bot in started:
        await bot.ensure_stopped()
