"""One real Synapse per test run; per test, fresh users, a bot (MatrixAdapter) and humans."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest

from bot.adapters.matrix import MatrixAdapter
from bot.clock import ManualClock
from bot.core.assistant import Assistant, CoreDeps
from bot.llm import ModelClient
from memory.db import Database
from tests.matrix.human import Human
from tests.matrix.synapse_server import SynapseServer, find_synapse_python
from tests.scripted_model import ScriptedModel
from tests.support import make_settings
from tools.registry import Risk, Skill, ToolRegistry, tool
from tools.skills.core import CoreSkill


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SynapseServer]:
    python = find_synapse_python()
    if python is None:
        reason = "Synapse is not installed: run `make synapse` or set SYNAPSE_PYTHON"
        if _ci():
            pytest.fail(f"CI is set and {reason}")
        pytest.skip(reason)
    server = SynapseServer(python, tmp_path_factory.mktemp("synapse"))
    server.start()
    print(f"\nsynapse start = {server.start_seconds:.2f} s")
    yield server
    server.stop()


class NotesSkill(Skill):
    """A destructive tool whose runs the tests can count."""

    id = "notes"
    description = "the user's notes"

    def __init__(self) -> None:
        self.deleted: list[str] = []

    @tool(risk=Risk.DESTRUCTIVE, describe=lambda args: f"Delete the note “{args.title}” for good")  # type: ignore[attr-defined]
    async def delete_note(self, title: Annotated[str, "the note's title"]) -> str:
        """Delete a note."""
        self.deleted.append(title)
        return f"note {title} deleted"


@dataclass
class Bot:
    adapter: MatrixAdapter
    assistant: Assistant
    user_id: str
    notes: NotesSkill
    store: Path

    async def stop(self) -> None:
        """Shut down as the app does (the test's end stops it again, harmlessly)."""
        await self.adapter.stop_receiving()
        await self.assistant.stop()
        await self.adapter.stop()


@dataclass
class MatrixWorld:
    """Builds users, humans and bots on the shared server; everything is closed at the end."""

    server: SynapseServer
    tmp_path: Path
    db: Database
    clock: ManualClock
    model: ScriptedModel
    stack: AsyncExitStack
    tag: str = field(default_factory=lambda: secrets.token_hex(3))

    def user(self, name: str) -> tuple[str, str]:
        password = secrets.token_hex(8)
        return self.server.register(f"{name}-{self.tag}", password), password

    async def human(self, name: str) -> Human:
        user_id, password = self.user(name)
        person = Human(self.server.url, user_id, password, self.tmp_path / f"store-{name}")
        await person.start()
        self.stack.push_async_callback(person.stop)
        return person

    async def second_device(self, person: Human, name: str) -> Human:
        """The same user logged in on another device (a new phone)."""
        device = Human(self.server.url, person.user_id, person.password, self.tmp_path / f"store-{name}")
        await device.start()
        self.stack.push_async_callback(device.stop)
        return device

    def bot_account(self) -> tuple[str, str]:
        return self.user("bot")

    async def bot(self, allowed: list[str], account: tuple[str, str] | None = None,
                  store: Path | None = None, notes: NotesSkill | None = None,
                  llm: dict[str, Any] | None = None, **matrix: Any) -> Bot:
        user_id, password = account or self.bot_account()
        store = store or self.tmp_path / f"bot-store-{user_id}"
        notes = notes or NotesSkill()
        settings = make_settings(
            self.tmp_path, self.model.base_url,
            core={"approval_timeout_seconds": 60}, llm=llm or {},
            matrix={"homeserver": self.server.url, "user_id": user_id, "password": password,
                    "store_path": store, "allowed_users": allowed, "sync_timeout_seconds": 1,
                    "undecryptable_grace_syncs": 1, **matrix},
        )
        registry = ToolRegistry()
        registry.add_skill(CoreSkill())
        registry.add_skill(notes)
        model = ModelClient(settings.llm, self.db, self.clock)
        assistant = Assistant(CoreDeps(settings=settings, db=self.db, clock=self.clock, model=model,
                                       registry=registry))
        adapter = MatrixAdapter(settings.matrix, assistant, self.db, self.clock)
        # As bot.app does: the adapter first, so Assistant.start can edit stale approvals.
        await adapter.start()
        await assistant.start()

        async def stop() -> None:
            await adapter.stop_receiving()
            await assistant.stop()
            await adapter.stop()
            await model.close()

        self.stack.push_async_callback(stop)
        return Bot(adapter, assistant, user_id, notes, store)


@pytest.fixture
async def world(synapse: SynapseServer, tmp_path: Path, db: Database, clock: ManualClock,
                model: ScriptedModel) -> AsyncIterator[MatrixWorld]:
    async with AsyncExitStack() as stack:
        yield MatrixWorld(synapse, tmp_path, db, clock, model, stack)
