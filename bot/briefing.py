"""The morning briefing: one message with today's sections (agenda, tasks, weather, and any
section another skill adds), posted into each user's chat at a configured local hour.

A section is `async (user_key, local_now) -> str | None`: Markdown body text, or None
when it has nothing to say. Sections run with a timeout each; one that fails shows a
short "unavailable" line instead of sinking the whole briefing. Sections added with
`content=False` (the weather) do not make a day worth a message on their own: with
`skip_empty`, a day where every content section is silent posts nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.config import Settings
from bot.core.events import MessageKind, OutboundMessage, SentMessage
from bot.errors import MayordomoError
from bot.scheduler import Scheduler

log = logging.getLogger(__name__)

BriefingSection = Callable[[str, datetime], Awaitable[str | None]]
"""(user_key, local now) -> Markdown body, or None when there is nothing to say."""

Deliver = Callable[[str, OutboundMessage], Awaitable[SentMessage | None]]
UserList = Callable[[], Awaitable[list[str]]]

JOB_ID = "morning-briefing"

_WEEKDAYS = {
    "es": ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
}
_MONTHS = {
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"],
    "en": ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"],
}


@dataclass(frozen=True)
class _Section:
    name: str
    render: BriefingSection
    content: bool


@dataclass(frozen=True)
class SectionResult:
    name: str
    text: str | None
    failed: bool
    content: bool


class Briefing:
    def __init__(self, clock: Clock, zone: ZoneInfo, deliver: Deliver, users: UserList, *,
                 language: str = "en", skip_empty: bool = False,
                 section_timeout_seconds: float = 60.0) -> None:
        self._clock = clock
        self._zone = zone
        self._deliver = deliver
        self._users = users
        self._lang = "es" if language == "es" else "en"
        self._skip_empty = skip_empty
        self._timeout = section_timeout_seconds
        self._sections: list[_Section] = []

    @property
    def section_names(self) -> list[str]:
        return [section.name for section in self._sections]

    def add_section(self, name: str, section: BriefingSection, *, content: bool = True) -> None:
        """Append a section; `name` is its heading. `content=False`: not enough for a message alone."""
        if name in self.section_names:
            raise ValueError(f"the briefing already has a section named {name!r}")
        self._sections.append(_Section(name, section, content))

    def install(self, scheduler: Scheduler, hour: int, minute: int) -> None:
        scheduler.add_daily(JOB_ID, hour, minute, self._zone, self.run)

    async def run(self, fire_time: datetime) -> None:
        """The scheduler's handler: compose and post one briefing per user."""
        local_now = self._clock.now().astimezone(self._zone)
        for user_key in await self._users():
            try:
                await self._brief(user_key, local_now)
            except Exception:  # one user's failure must not cost the others their briefing
                log.exception("briefing for %s failed", user_key)

    async def _brief(self, user_key: str, local_now: datetime) -> None:
        text = await self.compose(user_key, local_now)
        if text is None:
            log.info("briefing for %s skipped: nothing today", user_key)
            return
        sent = await self._deliver(user_key, OutboundMessage(text, MessageKind.SCHEDULED))
        if sent is None:
            log.warning("briefing for %s not delivered: no chat known", user_key)

    async def compose(self, user_key: str, local_now: datetime) -> str | None:
        """The briefing text, or None on an empty day when empty days are skipped."""
        results = [await self._render(section, user_key, local_now) for section in self._sections]
        has_content = any(r.content and (r.text or r.failed) for r in results)
        if not has_content and self._skip_empty:
            return None
        blocks = [self._greeting(local_now)]
        for result in results:
            if result.text:
                blocks.append(f"**{result.name}**\n{result.text}")
        if not has_content:
            blocks.append("Nada en la agenda ni tareas pendientes hoy." if self._lang == "es"
                          else "Nothing on the agenda and no open tasks today.")
        return "\n\n".join(blocks)

    async def _render(self, section: _Section, user_key: str, local_now: datetime) -> SectionResult:
        try:
            async with asyncio.timeout(self._timeout):
                text = await section.render(user_key, local_now)
        except TimeoutError:
            log.warning("briefing section %s timed out", section.name)
            return SectionResult(section.name, self._unavailable("timed out"), True, section.content)
        except MayordomoError as exc:
            return SectionResult(section.name, self._unavailable(str(exc)), True, section.content)
        except Exception:
            log.exception("briefing section %s failed", section.name)
            return SectionResult(section.name, self._unavailable("internal error"), True, section.content)
        cleaned = text.strip() if text else None
        return SectionResult(section.name, cleaned or None, False, section.content)

    def _unavailable(self, reason: str) -> str:
        return f"_no disponible: {reason}_" if self._lang == "es" else f"_unavailable: {reason}_"

    def _greeting(self, local_now: datetime) -> str:
        weekday = _WEEKDAYS[self._lang][local_now.weekday()]
        month = _MONTHS[self._lang][local_now.month - 1]
        if self._lang == "es":
            return f"☀️ **Buenos días.** Hoy es {weekday}, {local_now.day} de {month}."
        return f"☀️ **Good morning.** Today is {weekday}, {month} {local_now.day}."


def morning_briefing(settings: Settings, clock: Clock, deliver: Deliver, known_users: UserList,
                     scheduler: Scheduler | None = None) -> Briefing:
    """The briefing for BRIEFING_* settings; scheduled daily when a scheduler is given and it is on.

    It goes to BRIEFING_USERS, or else to every user the assistant has talked with.
    """
    options = settings.briefing

    async def users() -> list[str]:
        return list(options.users) or await known_users()

    lang = "es" if settings.core.language == "es" else "en"
    briefing = Briefing(clock, settings.core.zone, deliver, users, language=lang, skip_empty=options.skip_empty)
    if scheduler is not None and options.enabled:
        briefing.install(scheduler, options.hour, options.minute)
    return briefing
