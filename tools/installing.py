"""Installing skills: each one in the app's ordered list, then the installed packages the
owner enabled by name (entry-point group `mayordomo.skills`), all through one contract.

A skill that is not configured is skipped with one log line saying why. An installed
skill that is not enabled is never imported; one that is enabled but missing, broken or
not a `SkillPlugin` is skipped with one line too: a bad package never stops the assistant.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

import httpx

from bot.briefing import Briefing, morning_briefing
from bot.scheduler import Scheduler
from tools.plugin import Contributions, Need, Service, SkillContext, SkillPlugin

if TYPE_CHECKING:
    from bot.core.assistant import Assistant
    from memory.service import MemoryService

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "mayordomo.skills"


@dataclass(frozen=True)
class Installation:
    """What installing the skills gave: ids installed, why others are off, what to run."""

    installed: tuple[str, ...]
    skipped: Mapping[str, str]  # skill id -> why it is off, in one line
    services: tuple[Service, ...]


def skill_context(host: Assistant, scheduler: Scheduler, http: httpx.AsyncClient, *,
                  memory: MemoryService | None = None, briefing: Briefing | None = None) -> SkillContext:
    """The context skills install into, from the assistant's parts; an unscheduled briefing if none."""
    deps = host.deps
    if briefing is None:
        briefing = morning_briefing(deps.settings, deps.clock, host.deliver, host.chats.users)
    return SkillContext(settings=deps.settings, db=deps.db, clock=deps.clock, http=http, scheduler=scheduler,
                        model=deps.model, memory=memory, briefing=briefing, host=host, registry=deps.registry,
                        contributions=Contributions())


def enabled_packages(enabled: Sequence[str]) -> tuple[list[type[SkillPlugin]], dict[str, str]]:
    """The installed skills named in SKILLS_ENABLED, loaded; and why any named one is not."""
    wanted = [name.strip() for name in enabled if name.strip()]
    if not wanted:
        return [], {}
    found = {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}
    loaded: list[type[SkillPlugin]] = []
    problems: dict[str, str] = {}
    for name in wanted:
        point = found.get(name)
        if point is None:
            problems[name] = f"no installed package offers the skill {name!r} (entry point group {ENTRY_POINT_GROUP})"
            continue
        try:
            plugin = point.load()
        except Exception as exc:  # a broken third-party package: say so, keep going
            problems[name] = f"could not load {point.value}: {type(exc).__name__}: {exc}"
            continue
        if not (isinstance(plugin, type) and issubclass(plugin, SkillPlugin)):
            problems[name] = f"{point.value} is not a SkillPlugin subclass"
            continue
        if plugin.id != name:
            problems[name] = f"{point.value} declares the id {plugin.id!r}, not {name!r}"
            continue
        loaded.append(plugin)
    return loaded, problems


async def install_skills(plugins: Sequence[type[SkillPlugin]], ctx: SkillContext,
                         *, problems: Mapping[str, str] | None = None) -> Installation:
    """Install each configured skill in order; log one line for each that is off."""
    installed: list[str] = []
    skipped: dict[str, str] = dict(problems or {})
    for plugin in plugins:
        why = _missing(plugin, ctx) or plugin.unconfigured(ctx.settings)
        if why is not None:
            skipped[plugin.id] = why
            continue
        await plugin.install(ctx)
        installed.append(plugin.id)
    for skill_id, why in skipped.items():
        if skill_id not in installed:
            log.info("skill %s is off: %s", skill_id, why)
    return Installation(
        installed=tuple(installed),
        skipped={k: v for k, v in skipped.items() if k not in installed},
        services=tuple(ctx.contributions.services),
    )


def _missing(plugin: type[SkillPlugin], ctx: SkillContext) -> str | None:
    """What the skill needs that this app did not build (the rest is always there)."""
    if Need.MODEL in plugin.needs and ctx.model is None:
        return "it needs a model: set LLM_BASE_URL and LLM_CHAT_MODEL"
    if Need.MEMORY in plugin.needs and ctx.memory is None:
        return "it needs the memory service, which this app did not open"
    return None
