"""The real PTB Application against the fake Bot API, with the real core and scripted model."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest
from telegram import Update, User

from bot.adapters.telegram import TelegramAdapter, callback_data
from bot.clock import ManualClock
from bot.config import Settings
from bot.core.assistant import Assistant, CoreDeps
from bot.llm import ModelClient
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import make_settings
from tests.telegram import updates
from tests.telegram.fake_bot_api import BotMessage, FakeBotApi
from tests.telegram.updates import OWNER_ID, PARTNER_ID
from tools.registry import Risk, Skill, ToolRegistry, tool
from tools.skills.core import CoreSkill


class NotesSkill(Skill):
    """A destructive tool that really changes state, so approvals have something to guard."""

    id = "notes"
    description = "notes: delete a note"

    def __init__(self) -> None:
        self.notes = {"Groceries": "milk, eggs", "Ideas": "a boat"}
        self.deleted: list[str] = []
        self.shared: list[tuple[str, str]] = []

    @tool(risk=Risk.DESTRUCTIVE, describe=lambda a: f'Delete the note "{a.title}" for good.')  # type: ignore[attr-defined]
    async def delete_note(self, title: Annotated[str, "the exact note title"]) -> str:
        """Delete a note permanently."""
        if title not in self.notes:
            return f"there is no note called {title}"
        del self.notes[title]
        self.deleted.append(title)
        return f"deleted the note {title}"

    @tool(risk=Risk.DESTRUCTIVE)
    async def share_note(self, text: Annotated[str, "what to share"],
                         recipient: Annotated[str, "who gets it"]) -> str:
        """Share text with someone (its approval is the plain list of arguments)."""
        self.shared.append((text, recipient))
        return f"shared {len(text)} characters with {recipient}"


def telegram_settings(tmp_path: Path, model: ScriptedModel, api: FakeBotApi,
                      llm: dict[str, Any] | None = None, sections: dict[str, Any] | None = None,
                      **telegram: Any) -> Settings:
    return make_settings(
        tmp_path,
        model.base_url,
        llm={"transcription_model": "scripted-whisper", **(llm or {})},
        **(sections or {}),
        telegram={
            "bot_token": api.token,
            "allowed_users": f"{OWNER_ID},{PARTNER_ID}",
            "base_url": api.base_url,
            "base_file_url": api.base_file_url,
            "poll_timeout_seconds": 5,
            **telegram,
        },
    )


@dataclass
class Stack:
    """One running "process": an assistant with its Telegram adapter."""

    assistant: Assistant
    adapter: TelegramAdapter

    async def stop(self) -> None:
        await self.adapter.stop_receiving()
        await self.assistant.stop()
        await self.adapter.stop()
        if self.assistant.deps.model is not None:
            await self.assistant.deps.model.close()


async def start_stack(settings: Settings, db: Database, clock: ManualClock,
                      skill: NotesSkill, extra_skills: tuple[Skill, ...] = ()) -> Stack:
    registry = ToolRegistry()
    registry.add_skill(CoreSkill())
    registry.add_skill(skill)
    for extra in extra_skills:
        registry.add_skill(extra)
    model = ModelClient(settings.llm, db, clock) if settings.llm.base_url else None
    assistant = Assistant(CoreDeps(settings=settings, db=db, clock=clock, model=model,
                                   registry=registry))
    adapter = TelegramAdapter(settings.telegram, assistant, db, clock)
    # The adapter starts first, so approvals a previous process left open can be edited.
    await adapter.start()
    await assistant.start()
    return Stack(assistant, adapter)


@dataclass
class Harness:
    api: FakeBotApi
    model: ScriptedModel
    db: Database
    clock: ManualClock
    settings: Settings
    skill: NotesSkill
    stack: Stack
    stacks: list[Stack] = field(default_factory=list)
    _query_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def assistant(self) -> Assistant:
        return self.stack.assistant

    @property
    def adapter(self) -> TelegramAdapter:
        return self.stack.adapter

    async def say(self, body: str, user_id: int = OWNER_ID) -> int:
        return await self.api.push(
            updates.text(user_id, self.api.next_message_id(), self.clock.now(), body)
        )

    def owner_texts(self) -> list[str]:
        """What the owner really received (accepted sends only, in order)."""
        return [m.text for m in self.api.sent if m.chat_id == OWNER_ID]

    async def advance_until(self, until: Callable[[], bool], step: float = 5.0, tries: int = 600) -> None:
        """Advance the manual clock (backoffs, retry waits) and wake the outbox until `until()`."""
        for _ in range(tries):
            if until():
                return
            await self.clock.advance(step)
            self.assistant.outbox.wake()
            await asyncio.sleep(0.02)
        raise AssertionError(f"not reached; the owner got {self.owner_texts()}")

    async def push(self, build: Callable[[int], Update]) -> int:
        """Push an update built with a fresh message id."""
        return await self.api.push(build(self.api.next_message_id()))

    async def press(self, shown: BotMessage, approve: bool, user_id: int = OWNER_ID,
                    data: str | None = None) -> str:
        """Press a button under `shown`; returns the callback query id to look for."""
        request_id = approval_id(shown)
        query_id = f"q{next(self._query_ids)}"
        bot_user = User(self.api.bot_id, "Mayordomo", True, username=self.api.username)
        await self.api.push(updates.press(
            user_id, query_id, data if data is not None else callback_data(request_id, approve),
            shown.chat_id, shown.message_id, self.clock.now(), bot_user,
        ))
        return query_id

    async def answer_to(self, query_id: str) -> str:
        calls = await self.api.wait_for(
            "answerCallbackQuery", lambda c: c.params.get("callback_query_id") == query_id
        )
        return str(calls[0].params.get("text", ""))

    async def replies(self, count: int, chat_id: int = OWNER_ID,
                      predicate: Callable[[str], bool] | None = None) -> list[str]:
        calls = await self.api.wait_for(
            "sendMessage",
            lambda c: c.params["chat_id"] == chat_id
            and (predicate is None or predicate(str(c.params["text"]))),
            count=count,
        )
        return [str(c.params["text"]) for c in calls]

    async def approval_message(self, count: int = 1) -> BotMessage:
        await self.api.wait_for(
            "sendMessage", lambda c: "inline_keyboard" in (c.params.get("reply_markup") or {}),
            count=count,
        )
        return [message for message in self.api.sent if message.had_buttons][count - 1]

    async def restart(self) -> Stack:
        """A new process on the same database and fake server; the old one is abandoned."""
        old = self.stack
        await old.adapter.stop_receiving()  # the old process stops listening
        self.stacks.append(old)
        self.stack = await start_stack(self.settings, self.db, self.clock, self.skill)
        return self.stack

    async def wait_until(self, check: Callable[[], Awaitable[bool]], tries: int = 400) -> None:
        import asyncio

        for _ in range(tries):
            if await check():
                return
            await asyncio.sleep(0.025)
        raise AssertionError("condition not reached")


def approval_id(shown: BotMessage) -> str:
    assert shown.first_markup is not None
    data = shown.first_markup["inline_keyboard"][0][0]["callback_data"]
    return str(data).split(":", 1)[1]


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    server = FakeBotApi()
    await server.start()
    yield server
    await server.stop()


async def make_harness(tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database,
                       clock: ManualClock, llm: dict[str, Any] | None = None,
                       sections: dict[str, Any] | None = None,
                       extra_skills: Callable[[Settings], tuple[Skill, ...]] | None = None,
                       **telegram: Any) -> Harness:
    settings = telegram_settings(tmp_path, model, api, llm, sections, **telegram)
    skill = NotesSkill()
    stack = await start_stack(settings, db, clock, skill, extra_skills(settings) if extra_skills else ())
    return Harness(api, model, db, clock, settings, skill, stack)


@pytest.fixture
async def tg(tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database,
             clock: ManualClock) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path, model, api, db, clock)
    yield harness
    for stack in [harness.stack, *harness.stacks]:
        await stack.stop()
