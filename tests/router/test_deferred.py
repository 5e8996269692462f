"""The deferred catalog through the real turn: dispatch, schema errors, inherited risk."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from bot.clock import ManualClock
from bot.config import RouterSettings
from bot.core.assistant import Assistant
from bot.core.events import TextMessage
from bot.core.routing.deferred import DeferredExposure, build_dispatchers, build_exposure, deferral_pays
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings
from tools.policy import Policy
from tools.registry import BoundTool, Decision, Risk, Skill, tool


def _describe_delete(args: Any) -> str:
    return f"Delete vault item {args.key!r}"


class VaultSkill(Skill):
    id = "vault"
    description = "a small key-value vault"

    def __init__(self) -> None:
        self.items = {"wifi": "hunter2", "door": "1234"}

    @tool(risk=Risk.READ)
    async def vault_read(self, key: Annotated[str, Field(description="the item to read")]) -> str:
        """Read one vault item."""
        return self.items.get(key, "no such item")

    @tool(risk=Risk.DESTRUCTIVE, describe=_describe_delete)
    async def vault_delete(self, key: Annotated[str, Field(description="the item to delete for good")]) -> str:
        """Delete one vault item."""
        self.items.pop(key)
        return f"deleted {key}"


def _defer(assistant: Assistant) -> None:
    assistant.deps = dataclasses.replace(assistant.deps, exposure=DeferredExposure(Policy(), always=True))


async def _assistant(tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel,
                     vault: VaultSkill, auto_decide: bool | None = None):  # type: ignore[no-untyped-def]
    settings = make_settings(tmp_path, model.base_url)
    assistant, messenger = await build_assistant(settings, db, clock, skills=[vault], configure=_defer)
    messenger.auto_decide = auto_decide
    return assistant, messenger


def _tool_result(request: dict, call_index: int = -1) -> str:  # type: ignore[type-arg]
    return [m for m in request["messages"] if m["role"] == "tool"][call_index]["content"]


async def test_only_the_dispatchers_are_sent_and_search_shows_the_schema(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    vault = VaultSkill()
    assistant, _ = await _assistant(tmp_path, db, clock, model, vault)
    model.call("search_tools", query="delete an item from the vault")
    model.respond("You can delete vault items.")
    await assistant.handle(TextMessage(OWNER, "what can you do with the vault?"))
    assert model.tool_names(0) == ["current_location", "current_time", "search_tools", "use_tool", "respond"]
    found = _tool_result(model.requests[1])
    assert found.splitlines()[0].startswith('{"name": "vault_delete"')
    assert "the item to delete for good" in found


async def test_bad_arguments_come_back_with_the_real_schema(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    vault = VaultSkill()
    assistant, messenger = await _assistant(tmp_path, db, clock, model, vault, auto_decide=True)
    model.call("use_tool", {"name": "vault_delete", "arguments": {"item": "wifi"}})
    model.respond("I could not delete it.")
    await assistant.handle(TextMessage(OWNER, "borra la wifi del vault"))
    error = _tool_result(model.requests[1])
    assert error.startswith("ERROR:")
    assert "vault_delete" in error and "the item to delete for good" in error  # the inner schema
    assert messenger.approvals == []  # nothing ran, nothing was asked
    assert vault.items["wifi"] == "hunter2"
    row = await db.fetchone("SELECT status FROM tool_calls ORDER BY id DESC LIMIT 1")
    assert row is not None
    assert row["status"] == "invalid_arguments"


async def test_unknown_inner_tool_is_an_error_listing_what_exists(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    assistant, _ = await _assistant(tmp_path, db, clock, model, VaultSkill())
    model.call("use_tool", {"name": "vault_burn", "arguments": {}})
    model.respond("No such tool.")
    await assistant.handle(TextMessage(OWNER, "burn the vault"))
    error = _tool_result(model.requests[1])
    assert "no tool named 'vault_burn'" in error and "vault_delete" in error


async def test_destructive_call_behind_the_dispatcher_still_asks(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    vault = VaultSkill()
    assistant, messenger = await _assistant(tmp_path, db, clock, model, vault, auto_decide=False)
    model.call("use_tool", {"name": "vault_delete", "arguments": {"key": "door"}})
    model.respond("I did not delete it: you said no.")
    await assistant.handle(TextMessage(OWNER, "delete the door code"))
    assert len(messenger.approvals) == 1
    assert messenger.approvals[0].description == "Delete vault item 'door'"  # the real inner call
    assert vault.items["door"] == "1234"
    assert "NOT DONE" in _tool_result(model.requests[1])

    model.call("use_tool", {"name": "vault_delete", "arguments": {"key": "door"}})
    model.respond("Deleted the door code.")
    messenger.auto_decide = True
    await assistant.handle(TextMessage(OWNER, "ok, now yes, delete it"))
    assert len(messenger.approvals) == 2
    assert "door" not in vault.items


async def test_read_behind_the_dispatcher_runs_without_approval(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    vault = VaultSkill()
    assistant, messenger = await _assistant(tmp_path, db, clock, model, vault)
    model.call("use_tool", {"name": "vault_read", "arguments": {"key": "wifi"}})
    model.respond("The wifi password is hunter2.")
    await assistant.handle(TextMessage(OWNER, "wifi password?"))
    assert messenger.approvals == []
    assert _tool_result(model.requests[1]) == "hunter2"


def test_dispatcher_inherits_the_highest_risk_and_the_inner_policy() -> None:
    vault = VaultSkill()
    tools = vault.tools()
    search, use = build_dispatchers(tools, Policy())
    assert search.spec.risk is Risk.READ
    assert use.spec.risk is Risk.DESTRUCTIVE
    delete = use.parse({"name": "vault_delete", "arguments": {"key": "wifi"}})
    read = use.parse({"name": "vault_read", "arguments": {"key": "wifi"}})
    policy = Policy()
    assert policy.decide(use, delete) is Decision.REQUIRE_APPROVAL
    assert policy.decide(use, read) is Decision.ALLOW
    # After untrusted content the dispatcher (destructive behind it) always asks.
    assert policy.decide(use, read, untrusted_seen=True) is Decision.REQUIRE_APPROVAL
    only_reads = build_dispatchers([t for t in tools if t.name == "vault_read"], policy)[1]
    assert only_reads.spec.risk is Risk.READ


def test_whether_deferring_pays_depends_on_the_catalog() -> None:
    vault = VaultSkill().tools()
    assert not deferral_pays(vault)
    many: list[BoundTool] = []
    for index in range(40):
        for bound in vault:
            spec = dataclasses.replace(bound.spec, name=f"{bound.name}_{index}")
            many.append(BoundTool(spec=spec, skill=f"s{index}", owner=bound.owner))
    assert deferral_pays(many)
    exposure = DeferredExposure(Policy())
    assert exposure.select(vault) == vault
    assert [b.name for b in exposure.select(many)] == ["search_tools", "use_tool"]
    schemas = [json.dumps(b.spec.openai_schema(), sort_keys=True) for b in exposure.select(many)]
    other = [json.dumps(b.spec.openai_schema(), sort_keys=True) for b in exposure.select(many[:50])]
    assert schemas == other  # fixed schemas: the prompt prefix does not move with the catalog


def test_exposure_follows_the_defer_setting() -> None:
    many = [BoundTool(spec=dataclasses.replace(b.spec, name=f"{b.name}_{i}"), skill=f"s{i}", owner=b.owner)
            for i in range(40) for b in VaultSkill().tools()]
    few = VaultSkill().tools()
    never = build_exposure(RouterSettings(_env_file=None), Policy())  # type: ignore[call-arg]
    assert never.select(many) == many
    auto = build_exposure(RouterSettings(_env_file=None, defer="auto"), Policy())  # type: ignore[call-arg]
    assert auto.select(few) == few
    assert [b.name for b in auto.select(many)] == ["search_tools", "use_tool"]
    always = build_exposure(RouterSettings(_env_file=None, defer="always"), Policy())  # type: ignore[call-arg]
    assert [b.name for b in always.select(few)] == ["search_tools", "use_tool"]
