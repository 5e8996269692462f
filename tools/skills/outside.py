"""Wiring for the skills that read the outside world: email, news feeds and the inbox.

`install_outside_world` registers each skill that is configured, schedules the daily
news digest, and returns what the app must run (the inbox endpoint) and what the
morning briefing can include (the inbox section).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import httpx

from bot.config import Settings
from bot.core.events import MessageKind, OutboundMessage
from bot.inbox_server import InboxServer
from bot.scheduler import Scheduler
from memory.profile import ProfileSection, ProfileStore
from tools.skills.email import EmailSkill
from tools.skills.inbox import InboxSkill
from tools.skills.news import NewsSkill, render_digest

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from bot.core.assistant import Assistant

log = logging.getLogger(__name__)

NEWS_DIGEST_JOB = "news-digest"


@dataclass(frozen=True)
class OutsideWorld:
    """What was installed; `start`/`stop` run the inbox endpoint when it is enabled."""

    email: EmailSkill | None
    news: NewsSkill | None
    inbox: InboxSkill | None
    inbox_server: InboxServer | None

    @property
    def inbox_section(self) -> Callable[[str, datetime], Awaitable[str | None]] | None:
        """For `Briefing.add_section("Inbox", ...)`; None when the inbox is off."""
        return self.inbox.briefing_section if self.inbox is not None else None

    async def start(self) -> None:
        if self.inbox_server is not None:
            await self.inbox_server.start()

    async def stop(self) -> None:
        if self.inbox_server is not None:
            await self.inbox_server.stop()


def install_outside_world(assistant: Assistant, scheduler: Scheduler, settings: Settings,
                          http: httpx.AsyncClient) -> OutsideWorld:
    """Register the configured skills into the assistant's registry and schedule the digest."""
    registry = assistant.deps.registry
    db, clock = assistant.deps.db, assistant.deps.clock

    email: EmailSkill | None = None
    if settings.email.enabled:
        email = EmailSkill(settings.email)
        registry.add_skill(email)
        if not settings.email.can_send:
            log.info("email: reading only (set EMAIL_SMTP_HOST and EMAIL_FROM_ADDRESS to send)")

    news: NewsSkill | None = None
    if settings.news.feeds:
        news = NewsSkill(db, http, settings.news, clock)
        registry.add_skill(news)
        if settings.news.digest_enabled:
            scheduler.add_daily(NEWS_DIGEST_JOB, settings.news.digest_hour, settings.news.digest_minute,
                                settings.core.zone, _digest_job(assistant, news, settings))

    inbox: InboxSkill | None = None
    server: InboxServer | None = None
    if settings.inbox.enabled:
        inbox = InboxSkill(db, clock, keep_days=settings.inbox.keep_days)
        registry.add_skill(inbox)
        server = InboxServer(inbox, settings.inbox)
    return OutsideWorld(email=email, news=news, inbox=inbox, inbox_server=server)


def _digest_job(assistant: Assistant, news: NewsSkill, settings: Settings) -> Callable[[datetime], Awaitable[None]]:
    """Each user gets the picks that fit NEWS_INTERESTS plus their profile's preferences and work."""
    profiles = ProfileStore(assistant.deps.db, settings.memory.profile_budget_chars)

    async def interests_of(user_key: str) -> str:
        try:
            profile = await profiles.get(user_key)
        except Exception:  # no profile yet (or memory off): the configured interests still work
            log.exception("news digest: could not read the profile of %s", user_key)
            return ""
        wanted = (ProfileSection.PREFERENCES, ProfileSection.WORK)
        return " ".join(line for section in wanted for line in profile.sections.get(section, ()))

    async def post_digest(fire_time: datetime) -> None:
        users = settings.news.digest_users or await assistant.chats.users()
        shown: set[int] = set()
        for user_key in users:
            picks = await news.digest_picks(fire_time, await interests_of(user_key))
            if not picks:
                continue
            await assistant.deliver(user_key, OutboundMessage(render_digest(picks), MessageKind.SCHEDULED))
            shown.update(pick.entry.id for pick in picks)
        # Marked after every user got theirs, so one user's digest does not empty another's.
        await news.mark_digested(sorted(shown), fire_time)
        if not shown:
            log.info("news digest: nothing new to post")

    return post_digest
