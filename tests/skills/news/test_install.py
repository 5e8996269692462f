"""Installing email, news and the inbox: what gets registered, the digest job posting into the chat,
the inbox endpoint and its briefing section."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from bot.clock import ManualClock
from bot.core.assistant import Assistant
from bot.core.events import MessageKind
from bot.inbox_server import InboxServer
from bot.scheduler import Scheduler
from memory.db import Database
from memory.profile import ProfileStore
from tests.skills.news.feedserver import FeedServer, Item, rss
from tests.support import OWNER, build_assistant, make_settings
from tools.installing import Installation, install_skills, skill_context
from tools.plugin import SkillContext
from tools.skills.email import EmailSkill
from tools.skills.inbox import InboxSkill
from tools.skills.news import NEWS_DIGEST_JOB, NewsSkill

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


async def install_outside(assistant: Assistant, scheduler: Scheduler,
                          http: httpx.AsyncClient) -> tuple[Installation, SkillContext]:
    ctx = skill_context(assistant, scheduler, http)
    return await install_skills([EmailSkill, NewsSkill, InboxSkill], ctx), ctx


async def test_nothing_configured_installs_nothing(
    tmp_path: Path, db: Database, clock: ManualClock, http: httpx.AsyncClient
) -> None:
    settings = make_settings(tmp_path)
    assistant, _ = await build_assistant(settings, db, clock, with_model=False)
    installation, ctx = await install_outside(assistant, Scheduler(db, clock), http)
    assert installation.installed == () and installation.services == ()
    assert set(installation.skipped) == {"email", "news", "inbox"}
    assert "EMAIL_IMAP_HOST" in installation.skipped["email"] and "NEWS_FEEDS" in installation.skipped["news"]
    assert sorted(assistant.deps.registry.skills) == ["core"]
    assert ctx.briefing.section_names == []


async def test_everything_configured_and_the_digest_posts_into_the_chat(
    tmp_path: Path, db: Database, clock: ManualClock, http: httpx.AsyncClient, feeds: FeedServer
) -> None:
    feeds.set("/feed.xml", body=rss("Diario", [
        Item(title="Nueva línea de metro en Madrid", link="https://d.example/metro", guid="1",
             description="Abre en abril.", published=NOW - timedelta(hours=3)),
        Item(title="Receta de la semana", link="https://d.example/receta", guid="2",
             published=NOW - timedelta(hours=2)),
    ]))
    settings = make_settings(
        tmp_path,
        email={"imap_host": "127.0.0.1", "username": "me", "password": "pw", "smtp_host": "127.0.0.1",
               "from_address": "me@example.org"},
        news={"feeds": feeds.url("/feed.xml"), "interests": "metro Madrid", "digest_hour": 10, "digest_size": 1},
        inbox={"enabled": True, "port": 0, "token": "a-token-of-sixteen+"},
    )
    scheduler = Scheduler(db, clock)
    assistant, messenger = await build_assistant(settings, db, clock, with_model=False)
    installation, ctx = await install_outside(assistant, scheduler, http)
    assert installation.installed == ("email", "news", "inbox")
    assert {"email", "news", "inbox"} <= set(assistant.deps.registry.skills)
    assert assistant.deps.registry.get("send_email") is not None
    assert ctx.briefing.section_names == ["Inbox"]

    [server] = installation.services
    assert isinstance(server, InboxServer)
    await server.start()
    try:
        assert server.port
        async with httpx.AsyncClient() as client:
            pushed = await client.post(f"{server.url}/nas", json={"message": "Disk 2 failed"},
                                       headers={"Authorization": "Bearer a-token-of-sixteen+"})
        assert pushed.status_code == 200
    finally:
        await server.stop()
    section = await ctx.briefing.compose("console:owner", clock.now())
    assert section is not None and "nas: 1 notification(s): 1 problem" in section

    await assistant.chats.seen(OWNER, clock.now())
    assert await scheduler.tick() == []  # first sight of the job: it starts counting from now (09:00 Madrid)
    clock.set(datetime(2026, 3, 2, 9, 5, tzinfo=UTC))  # 10:05 in Madrid
    assert await scheduler.tick() == [NEWS_DIGEST_JOB]
    [(chat, message)] = messenger.sent
    assert chat == OWNER and message.kind is MessageKind.SCHEDULED
    assert "1. [Nueva línea de metro en Madrid](https://d.example/metro)" in message.text
    assert "Receta" not in message.text

    clock.set(datetime(2026, 3, 3, 9, 5, tzinfo=UTC))  # next day: nothing new but the recipe
    assert await scheduler.tick() == [NEWS_DIGEST_JOB]
    assert "Receta de la semana" in messenger.sent[-1][1].text
    clock.set(datetime(2026, 3, 4, 9, 5, tzinfo=UTC))  # nothing left: no message at all
    await scheduler.tick()
    assert len(messenger.sent) == 2


async def test_the_digest_follows_each_users_profile(
    tmp_path: Path, db: Database, clock: ManualClock, http: httpx.AsyncClient, feeds: FeedServer
) -> None:
    feeds.set("/feed.xml", body=rss("Diario", [
        Item(title="Nueva línea de metro", link="https://d.example/metro", guid="1",
             published=NOW - timedelta(hours=1)),
        Item(title="Receta de cocina: lentejas", link="https://d.example/receta", guid="2",
             published=NOW - timedelta(hours=3)),
    ]))
    settings = make_settings(tmp_path, news={"feeds": feeds.url("/feed.xml"), "digest_hour": 10, "digest_size": 1})
    scheduler = Scheduler(db, clock)
    assistant, messenger = await build_assistant(settings, db, clock, with_model=False)
    await install_outside(assistant, scheduler, http)
    async with db.transaction() as tx:
        await ProfileStore(db, 2500).rewrite(tx, OWNER.user_key, {"preferences": ["le encantan las recetas de cocina"]},
                                             clock.now())
    await assistant.chats.seen(OWNER, clock.now())
    await scheduler.tick()
    clock.set(datetime(2026, 3, 2, 9, 5, tzinfo=UTC))
    assert await scheduler.tick() == [NEWS_DIGEST_JOB]
    [(_, message)] = messenger.sent
    assert "1. [Receta de cocina: lentejas]" in message.text and "metro" not in message.text
