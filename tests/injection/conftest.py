"""Real peers for the injection tests: mail (Dovecot + SMTP), CalDAV (Radicale), feeds and
web pages (a local HTTP server), and the inbox endpoint; plus the assistant around them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bot.clock import ManualClock
from bot.config import NewsSettings, NotesSettings, WebSettings
from bot.core.assistant import Assistant
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.skills.conftest import caldav_settings, calendar_name  # noqa: F401  (fixtures)
from tests.skills.email.mailserver import MailAccount, MailServer
from tests.skills.news.feedserver import FeedServer
from tests.support import RecordingMessenger, build_assistant, make_settings
from tools.registry import Skill
from tools.skills.email import EmailSkill
from tools.skills.inbox import InboxSkill
from tools.skills.news import NewsSkill
from tools.skills.notes import NotesSkill
from tools.skills.web import WebSkill


@pytest.fixture
def mail_account(mail_server: MailServer) -> MailAccount:
    return mail_server.new_account()


@pytest.fixture
async def web() -> AsyncIterator[FeedServer]:
    """Serves feeds, web pages and an attacker's collection endpoint; records every request."""
    server = FeedServer()
    await server.start()
    yield server
    await server.stop()


@dataclass
class World:
    """The owner's assistant with every outside-world skill, on real peers."""

    assistant: Assistant
    messenger: RecordingMessenger
    email: EmailSkill
    news: NewsSkill
    inbox: InboxSkill
    notes_folder: Path


@pytest.fixture
def build_world(
    tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel, mail_account: MailAccount,
    web: FeedServer, http: httpx.AsyncClient,
):  # type: ignore[no-untyped-def]
    async def build(*extra: Skill, auto_decide: bool | None = False) -> World:
        settings = make_settings(tmp_path, model.base_url, core={"approval_timeout_seconds": 120})
        notes_folder = tmp_path / "notes"
        notes_folder.mkdir(exist_ok=True)
        email = EmailSkill(mail_account.settings)
        news = NewsSkill(db, http, NewsSettings(_env_file=None, feeds=[web.url("/feed.xml")]),  # type: ignore[call-arg]
                         clock)
        inbox = InboxSkill(db, clock)
        web_skill = WebSkill(http, WebSettings(_env_file=None, allow_private_addresses=True))  # type: ignore[call-arg]
        notes = NotesSkill(NotesSettings(_env_file=None, folder=notes_folder))  # type: ignore[call-arg]
        assistant, messenger = await build_assistant(
            settings, db, clock, skills=[email, news, inbox, web_skill, notes, *extra],
            messenger=RecordingMessenger(auto_decide=auto_decide),
        )
        return World(assistant, messenger, email, news, inbox, notes_folder)

    return build
