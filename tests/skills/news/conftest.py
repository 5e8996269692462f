"""A local feed server, an HTTP client and a NewsSkill factory for the news tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from bot.clock import ManualClock
from bot.config import NewsSettings
from memory.db import Database
from tests.skills.news.feedserver import FeedServer
from tools.skills.news import NewsSkill

NewsFactory = Callable[..., NewsSkill]


@pytest.fixture
async def feeds() -> AsyncIterator[FeedServer]:
    server = FeedServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def make_news(db: Database, http: httpx.AsyncClient, clock: ManualClock, feeds: FeedServer) -> NewsFactory:
    def build(*paths: str, **values: Any) -> NewsSkill:
        settings = NewsSettings(_env_file=None, feeds=[feeds.url(p) for p in paths], **values)  # type: ignore[call-arg]
        return NewsSkill(db, http, settings, clock)

    return build
