"""Calling a skill's tools the way the core does: schema-validated arguments, a real ToolContext."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.clock import Clock
from memory.db import Database
from memory.locations import LocationStore
from tests.support import OWNER
from tools.context import ToolContext
from tools.registry import BoundTool, Skill


def tool_context(db: Database, clock: Clock, zone: str = "Europe/Madrid") -> ToolContext:
    return ToolContext(chat=OWNER, clock=clock, timezone=ZoneInfo(zone), locations=LocationStore(db),
                       location_max_age=timedelta(hours=1))


def bound(skill: Skill, name: str) -> BoundTool:
    for candidate in skill.tools():
        if candidate.name == name:
            return candidate
    raise AssertionError(f"{skill.id} has no tool {name}")


async def call(skill: Skill, name: str, ctx: ToolContext, **arguments: Any) -> Any:
    """Parse the arguments against the tool's schema (as the model's would be), then run it."""
    tool = bound(skill, name)
    return await tool.invoke(tool.parse(arguments), ctx)
