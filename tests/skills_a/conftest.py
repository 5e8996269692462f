"""Fixtures for the environment, notes and web skills: fake services, a context, a client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.clock import ManualClock
from bot.config import EnvironmentSettings, NotesSettings, WebSettings
from bot.core.events import Location, LocationSource
from memory.db import Database
from memory.locations import LocationStore
from tests.skills_a.fakes import SOL, FakeServices
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
