"""Shared test helpers: settings for temp folders, a recording messenger, an assistant builder."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.clock import Clock
from bot.config import Settings, load_settings
from bot.core.approvals import ApprovalOutcome, ApprovalRequest
from bot.core.assistant import Assistant, CoreDeps
from bot.core.events import (
    ApprovalDecision,
    ChatKind,
    ChatRef,
    OutboundMessage,
    Platform,
    SentMessage,
)
from bot.core.routing import AllSkillsRouter, SkillRouter
from bot.llm import ModelClient
from memory.db import Database
from tools.registry import Skill, ToolRegistry
from tools.skills.core import CoreSkill

OWNER = ChatRef(Platform.CONSOLE, chat_id="chat-1", user_id="owner", kind=ChatKind.PRIVATE)
STRANGER = ChatRef(Platform.CONSOLE, chat_id="chat-1", user_id="stranger")


def make_settings(tmp_path: Path, model_url: str | None = None, **sections: dict[str, Any]) -> Settings:
    """Settings isolated from the developer's .env and environment-specific values."""
    core = {"data_dir": tmp_path, "timezone": "Europe/Madrid", **sections.pop("core", {})}
    llm = {"base_url": model_url, "chat_model": "scripted-chat", "api_key": "test-key",
           "max_retries": 0, "timeout_seconds": 5, **sections.pop("llm", {})}
    return load_settings(None, core=core, llm=llm, **sections)


@dataclass
class RecordingMessenger:
    """A Messenger that records everything and can answer approvals by itself.

    `auto_decide` is None (leave pending), True (approve) or False (deny), applied as
    soon as an approval is presented, through the assistant like a real button press.
    """

    platform: Platform = Platform.CONSOLE
    assistant: Assistant | None = None
    auto_decide: bool | None = None
    sent: list[tuple[ChatRef, OutboundMessage]] = field(default_factory=list)
    approvals: list[ApprovalRequest] = field(default_factory=list)
    outcomes: list[tuple[ApprovalRequest, ApprovalOutcome]] = field(default_factory=list)
    typings: int = 0
    presented: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage:
        self.sent.append((chat, message))
        return SentMessage(chat, f"m{len(self.sent)}")

    async def typing(self, chat: ChatRef) -> None:
        self.typings += 1

    async def present_approval(self, request: ApprovalRequest) -> SentMessage:
        self.approvals.append(request)
        self.presented.set()
        if self.auto_decide is not None and self.assistant is not None:
            decision = ApprovalDecision(request.chat, request.id, self.auto_decide)
            asyncio.get_running_loop().call_soon(
                lambda: asyncio.ensure_future(self.assistant.decide(decision))  # type: ignore[union-attr]
            )
        return SentMessage(request.chat, f"approval-{len(self.approvals)}")

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        self.outcomes.append((request, outcome))

    @property
    def texts(self) -> list[str]:
        return [message.text for _, message in self.sent]


async def build_assistant(
    settings: Settings,
    db: Database,
    clock: Clock,
    *,
    skills: list[Skill] | None = None,
    router: SkillRouter | None = None,
    messenger: RecordingMessenger | None = None,
    with_model: bool = True,
    configure: Callable[[Assistant], None] | None = None,
    start: bool = True,
) -> tuple[Assistant, RecordingMessenger]:
    """An Assistant on real SQLite with the scripted model; `start=False` lets a test add
    a real adapter first (start order: adapters, then `assistant.start()`)."""
    registry = ToolRegistry()
    registry.add_skill(CoreSkill())
    for skill in skills or []:
        registry.add_skill(skill)
    model = ModelClient(settings.llm, db, clock) if with_model and settings.llm.base_url else None
    deps = CoreDeps(settings=settings, db=db, clock=clock, model=model, registry=registry,
                    router=router or AllSkillsRouter())
    assistant = Assistant(deps)
    messenger = messenger or RecordingMessenger()
    messenger.assistant = assistant
    assistant.add_messenger(messenger)
    if configure is not None:
        configure(assistant)
    if start:
        await assistant.start()
    return assistant, messenger
