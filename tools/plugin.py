"""The skill contract: how a skill, built-in or installed, plugs itself into the app.

A skill is a `SkillPlugin` subclass. It declares its `id`, a one-line `description`, its
`routing` (summary, cue phrases and example requests the router learns it from), its
settings section and what it `needs`; `unconfigured(settings)` says in one line why it
cannot run yet (or None), and `install(ctx)` builds it from what the app passes in and
contributes tools, scheduled jobs, briefing sections, background services and commands
through the context. Heavy libraries are imported inside
`install` (or by the modules it imports), so a skill that is off costs nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import httpx

from bot.briefing import Briefing, BriefingSection
from bot.clock import Clock
from bot.config import Settings
from bot.core.events import CommandMessage, OutboundMessage
from bot.scheduler import Scheduler
from memory.db import Database
from tools.registry import Skill, ToolRegistry

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

    from bot.core.assistant import Assistant
    from bot.llm import ModelClient
    from memory.service import MemoryService

T = TypeVar("T")

Job = Callable[[datetime], Awaitable[None]]
CommandHandler = Callable[[CommandMessage], Awaitable[OutboundMessage]]


class Need(StrEnum):
    """What a skill asks the app for; one whose model or memory the app did not build stays off."""

    HTTP = "http"
    CLOCK = "clock"
    DATABASE = "database"
    SCHEDULER = "scheduler"
    MODEL = "model"
    MEMORY = "memory"
    BRIEFING = "briefing"
    DELIVERY = "delivery"  # posting into a user's chat outside a turn


class Service(Protocol):
    """Something that runs beside the adapters (the inbox endpoint): started and stopped by the app."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass
class Contributions:
    """What skills add beyond tools and commands, collected while they install."""

    services: list[Service] = field(default_factory=list)
    shared: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SkillContext:
    """Everything the app passes to `install`, and the ways a skill contributes."""

    settings: Settings
    db: Database
    clock: Clock
    http: httpx.AsyncClient
    scheduler: Scheduler
    model: ModelClient | None
    memory: MemoryService | None
    briefing: Briefing
    host: Assistant  # deliver, chats, locations, approvals, commands, prompt sources
    registry: ToolRegistry
    contributions: Contributions

    @property
    def language(self) -> str:
        """The language of scheduled texts: "es" or "en" (auto falls back to English)."""
        return "es" if self.settings.core.language == "es" else "en"

    def add_tools(self, skill: Skill) -> None:
        self.registry.add_skill(skill)

    def add_daily_job(self, job_id: str, hour: int, minute: int, job: Job) -> None:
        """Run `job` every day at this local time (the owner's time zone)."""
        self.scheduler.add_daily(job_id, hour, minute, self.settings.core.zone, job)

    def add_cron_job(self, job_id: str, trigger: CronTrigger, job: Job) -> None:
        self.scheduler.add_cron(job_id, trigger, self.settings.core.zone, job)

    def add_briefing_section(self, name: str, section: BriefingSection, *, content: bool = True) -> None:
        self.briefing.add_section(name, section, content=content)

    def add_service(self, service: Service) -> None:
        self.contributions.services.append(service)

    def add_command(self, name: str, handler: CommandHandler, help_text: str) -> None:
        self.host.add_command(name, handler, help_text)

    def shared(self, key: str, build: Callable[[], T]) -> T:
        """One object several skills use (the CalDAV store of agenda and tasks), built once."""
        found = self.contributions.shared.get(key)
        if found is None:
            found = self.contributions.shared[key] = build()
        return found  # type: ignore[no-any-return]


class SkillPlugin(Skill):
    """A skill that installs itself; subclasses set `id`, `description` and `install`."""

    settings_section: ClassVar[str] = ""  # the settings it reads: its env prefix, e.g. "caldav"
    needs: ClassVar[frozenset[Need]] = frozenset()

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        """Why this skill is off with these settings, in one line; None when it can run."""
        return None

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Add the skill's tools; a skill that needs more (a store, jobs, commands) overrides this."""
        ctx.add_tools(cls())
