"""Our requests pass a real llama-cpp-python server, which refuses what strict servers refuse.

The server validates each request (its pydantic schema) and renders it through a strict chat
template stored in a tiny GGUF (a system message only first, string content, every tool call
answered). The turns run through our real client, the openai SDK and the gateway, which has the
real server judge every request before the scripted model answers it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.clock import ManualClock
from bot.core.events import TextMessage
from bot.errors import ModelError, ModelFailure
from bot.llm import Role
from memory.db import Database
from tests.core.test_turn import Pantry
from tests.llama_cpp.gateway import ValidatingGateway
from tests.llama_cpp.server import LlamaCppServer
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings

CALL = {"id": "call_1", "type": "function", "function": {"name": "add_item", "arguments": '{"item": "eggs"}'}}


def _post(server: LlamaCppServer, messages: list[dict[str, Any]]) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json={"model": "tiny-strict", "messages": messages},
                      timeout=120)


def test_the_server_refuses_what_strict_servers_refuse(llama_cpp_server: LlamaCppServer) -> None:
    ask = {"role": "user", "content": "add eggs"}
    done = {"role": "tool", "tool_call_id": "call_1", "content": "added eggs"}
    accepted = _post(llama_cpp_server, [{"role": "system", "content": "be brief"}, ask,
                                        {"role": "assistant", "content": "", "tool_calls": [CALL]}, done])
    assert accepted.status_code == 200, accepted.text
    null_content = _post(llama_cpp_server, [ask, {"role": "assistant", "content": None, "tool_calls": [CALL]}, done])
    assert null_content.status_code != 200 and "Input should be a valid string" in null_content.text
    late_system = _post(llama_cpp_server, [ask, {"role": "system", "content": "Now: Monday."}])
    assert late_system.status_code != 200 and "initial optional system message" in late_system.text
    unanswered = _post(llama_cpp_server, [ask, {"role": "assistant", "content": "", "tool_calls": [CALL]},
                                          {"role": "user", "content": "well?"}])
    assert unanswered.status_code != 200 and "left unanswered" in unanswered.text


@pytest.fixture
async def pantry_assistant(tmp_path: Path, db: Database, clock: ManualClock, gateway: ValidatingGateway):
    pantry = Pantry()
    settings = make_settings(tmp_path, gateway.base_url,
                             llm={"profile": "local", "chat_model": "tiny-strict", "timeout_seconds": 120})
    assistant, messenger = await build_assistant(settings, db, clock, skills=[pantry])
    return assistant, messenger, pantry


async def test_a_tool_round_trip_passes_the_real_server(pantry_assistant, model: ScriptedModel,
                                                         gateway: ValidatingGateway) -> None:
    assistant, messenger, pantry = pantry_assistant
    model.call("add_item", item="eggs")  # the scripted server sends "content": null with the call
    model.respond("I added eggs.")
    await assistant.handle(TextMessage(OWNER, "add eggs to the pantry"))
    assert pantry.items == ["milk", "eggs"] and messenger.texts[-1] == "I added eggs."
    assert [c.status for c in gateway.checked] == [200, 200], gateway.refusals
    roles = [m["role"] for m in gateway.checked[1].body["messages"]]
    assert roles[-3:] == ["user", "assistant", "tool"]  # the call went back, answered, and passed
    assert gateway.checked[1].body["messages"][-2]["tool_calls"][0]["function"]["name"] == "add_item"


async def test_a_correction_and_the_next_turn_pass_the_real_server(pantry_assistant, model: ScriptedModel,
                                                                    gateway: ValidatingGateway) -> None:
    assistant, messenger, pantry = pantry_assistant
    model.say("I've added bread.")  # plain text and nothing added: the software corrects it
    model.call("add_item", item="bread")
    model.respond("I've added bread.")
    await assistant.handle(TextMessage(OWNER, "add bread to the pantry"))
    model.respond("You have milk and bread.")
    await assistant.handle(TextMessage(OWNER, "thanks, and what is there now?"))
    assert pantry.items == ["milk", "bread"] and messenger.texts[-1] == "You have milk and bread."
    assert len(gateway.checked) == 4 and gateway.refusals == []
    for checked in gateway.checked:  # one system message, first, in every request
        assert [m["role"] for m in checked.body["messages"]].count("system") == 1


async def test_a_refusal_reaches_our_client_with_the_servers_reason(pantry_assistant,
                                                                    gateway: ValidatingGateway) -> None:
    assistant, _messenger, _pantry = pantry_assistant
    late_system = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Now: Monday."}]
    with pytest.raises(ModelError) as refused:
        await assistant.deps.model.complete(Role.CHAT, late_system)
    assert refused.value.failure is ModelFailure.SERVER_ERROR
    assert "initial optional system message" in refused.value.reason
    assert [c.status for c in gateway.checked] == [500]


async def test_the_real_servers_own_tool_calls_go_back_and_pass(
        tmp_path: Path, db: Database, clock: ManualClock, llama_cpp_tool_server: LlamaCppServer) -> None:
    relay = ValidatingGateway(llama_cpp_tool_server.base_url, None)  # the real server answers
    await relay.start()
    try:
        settings = make_settings(tmp_path, relay.base_url, core={"max_tool_rounds": 3},
                                 llm={"profile": "local", "chat_model": "tiny", "timeout_seconds": 120})
        assistant, messenger = await build_assistant(settings, db, clock, skills=[Pantry()])
        await assistant.handle(TextMessage(OWNER, "what is in the pantry?"))
    finally:
        await relay.stop()
    answered = [c for c in relay.checked if c.status == 200]
    calls = [call for c in answered for call in json.loads(c.reply)["choices"][0]["message"].get("tool_calls") or []]
    assert calls, [c.reply[:300] for c in relay.checked]  # the server's grammar made the model call tools
    sent_back = [m for c in relay.checked for m in c.body["messages"] if m.get("tool_calls")]
    assert sent_back and all(m["content"] == "" for m in sent_back)  # the server sent null; we send ""
    # Every request that carried the server's calls back was accepted; only a "required"
    # tool_choice may have been refused (this format takes "auto"), and was asked again.
    assert all(c.status == 200 for c in relay.checked if c.body["tool_choice"] != "required"), relay.refusals
    assert len(answered) == 3 and "model server" not in messenger.texts[-1]
