"""Small helpers for the skill tests: a ToolContext for the owner, calling tools by name."""

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

MADRID = ZoneInfo("Europe/Madrid")


def context(db: Database, clock: Clock, zone: ZoneInfo = MADRID) -> ToolContext:
    return ToolContext(chat=OWNER, clock=clock, timezone=zone, locations=LocationStore(db),
                       location_max_age=timedelta(minutes=60))


def bound(skill: Skill, name: str) -> BoundTool:
    found = {tool.name: tool for tool in skill.tools()}
    return found[name]


async def call(skill: Skill, name: str, ctx: ToolContext, **arguments: Any) -> Any:
    """Parse the arguments like the core does (JSON schema), then invoke."""
    tool = bound(skill, name)
    return await tool.invoke(tool.parse(arguments), ctx)
