"""Small helpers for the skill tests: a ToolContext for the owner, calling tools by name,
installing the day's skills (agenda, tasks, reminders, weather) with the morning briefing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from bot.briefing import Briefing, morning_briefing
from bot.clock import Clock
from bot.config import Settings
from bot.core.assistant import Assistant
from bot.scheduler import Scheduler
from memory.db import Database
from memory.locations import LocationStore
from tests.support import OWNER
from tools.context import ToolContext
from tools.installing import install_skills, skill_context
from tools.registry import BoundTool, Skill
from tools.skills.agenda import AgendaSkill
from tools.skills.environment import EnvironmentSkill
from tools.skills.reminders import RemindersSkill
from tools.skills.tasks import TasksSkill

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


async def install_day(assistant: Assistant, scheduler: Scheduler, settings: Settings,
                      http: httpx.AsyncClient) -> Briefing:
    """Agenda and tasks (when CalDAV is set), reminders, weather and the scheduled briefing, as the app does."""
    deps = assistant.deps
    briefing = morning_briefing(settings, deps.clock, assistant.deliver, assistant.chats.users, scheduler)
    ctx = skill_context(assistant, scheduler, http, briefing=briefing)
    await install_skills([AgendaSkill, TasksSkill, RemindersSkill, EnvironmentSkill], ctx)
    return briefing
