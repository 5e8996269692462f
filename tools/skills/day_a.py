"""The everyday skills of part A: environment (weather, places), notes and web."""

from __future__ import annotations

import httpx

from bot.clock import Clock
from bot.config import Settings
from tools.registry import Skill
from tools.skills.environment import EnvironmentSkill
from tools.skills.notes import NotesSkill
from tools.skills.web import WebSkill


def day_skills_a(settings: Settings, http: httpx.AsyncClient, clock: Clock) -> list[Skill]:
    """Build the skills; all of them work without keys (web search needs a provider URL or key)."""
    return [
        EnvironmentSkill(http, settings.environment, clock),
        NotesSkill(settings.notes),
        WebSkill(http, settings.web),
    ]
