"""Each way a model endpoint fails is told apart and told to the owner with what would fix it."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.core.events import MessageKind, TextMessage
from bot.errors import ModelError, ModelFailure
from bot.llm import ModelClient, Role
from memory.db import Database
from tests.core.test_turn import Pantry
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings

# (how the server fails, the class, what the owner reads). Bodies are the servers' real shapes.
CASES: dict[str, tuple[dict[str, Any], ModelFailure, str]] = {
    "rate limited": ({"status": 429, "message": "Rate limit reached for requests",
                      "headers": {"retry-after": "7"}}, ModelFailure.RATE_LIMITED, "try again in 7 s"),
    "rejected (llama.cpp python server)": (
        {"status": 500, "body": {"detail": [{"loc": ["body", "messages", 2, "content"],
                                             "msg": "Input should be a valid string"}]}},
        ModelFailure.SERVER_ERROR, "body.messages.2.content: Input should be a valid string."),
    "rejected (400)": ({"status": 400, "message": "'tool_choice' must be 'auto' for this model",
                        "code": "invalid_request_error"},
                       ModelFailure.REJECTED,
                       "The model server rejected the request: 'tool_choice' must be 'auto' for this model."),
    "bad credentials": ({"status": 401, "message": "Incorrect API key provided: test-key"},
                        ModelFailure.BAD_CREDENTIALS, "check LLM_API_KEY"),
    "unknown model (Ollama)": ({"status": 404, "message": "model \"scripted-chat\" not found, try pulling it first"},
                               ModelFailure.UNKNOWN_MODEL, "does not know the model 'scripted-chat'"),
    "unknown model (OpenAI)": ({"status": 404, "message": "The model `scripted-chat` does not exist",
                                "code": "model_not_found"},
                               ModelFailure.UNKNOWN_MODEL, "check LLM_CHAT_MODEL"),
    "context too long (OpenAI)": ({"status": 400, "code": "context_length_exceeded",
                                   "message": "This model's maximum context length is 8192 tokens."},
                                  ModelFailure.CONTEXT_TOO_LONG, "doesn't fit the model's context"),
    "context too long (llama.cpp)": ({"status": 400, "body": "the request exceeds the available context size"},
                                     ModelFailure.CONTEXT_TOO_LONG, "doesn't fit the model's context"),
    "gateway down": ({"status": 502, "message": "upstream connect error"},
                     ModelFailure.UNREACHABLE, "couldn't reach the model server"),
}


def _queue(model: ScriptedModel, spec: dict[str, Any]) -> None:
    spec = dict(spec)
    model.fail(spec.pop("status"), **spec)


@pytest.mark.parametrize("case", list(CASES))
async def test_each_failure_has_its_class(case: str, tmp_path: Path, db: Database, clock: ManualClock,
                                          model: ScriptedModel) -> None:
    spec, failure, _ = CASES[case]
    _queue(model, spec)
    client = ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)
    with pytest.raises(ModelError) as caught:
        await client.complete(Role.CHAT, [{"role": "user", "content": "hi"}])
    await client.close()
    assert caught.value.failure is failure
    assert "test-key" not in str(caught.value) and "test-key" not in caught.value.reason
    row = await db.fetchone("SELECT ok, error FROM model_calls")
    assert row["ok"] == 0 and row["error"]


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][1] is not ModelFailure.CONTEXT_TOO_LONG])
async def test_the_owner_reads_what_is_wrong(case: str, tmp_path: Path, db: Database, clock: ManualClock,
                                             model: ScriptedModel) -> None:
    spec, failure, said = CASES[case]
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"})
    assistant, messenger = await build_assistant(settings, db, clock)
    _queue(model, spec)
    await assistant.handle(TextMessage(OWNER, "what's the weather?"))
    reply = messenger.texts[-1]
    assert said in reply and "Your message is saved." in reply
    assert messenger.sent[-1][1].kind is MessageKind.ERROR
    assert "test-key" not in reply
    if failure in (ModelFailure.REJECTED, ModelFailure.SERVER_ERROR, ModelFailure.BAD_CREDENTIALS,
                   ModelFailure.UNKNOWN_MODEL):
        assert "try again" not in reply  # waiting does not fix these


async def test_unreachable_server(tmp_path: Path, db: Database, clock: ManualClock) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = make_settings(tmp_path, f"http://127.0.0.1:{port}/v1", core={"language": "en"})
    assistant, messenger = await build_assistant(settings, db, clock)
    await assistant.handle(TextMessage(OWNER, "hello"))
    assert "couldn't reach the model server (LLM_BASE_URL)" in messenger.texts[-1]
    row = await db.fetchone("SELECT ok, error FROM model_calls")
    assert row["ok"] == 0 and "APIConnectionError" in row["error"]


async def test_timeout_says_which_setting(tmp_path: Path, db: Database, clock: ManualClock,
                                          model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"}, llm={"timeout_seconds": 0.3})
    assistant, messenger = await build_assistant(settings, db, clock)
    model.hang(2)
    await assistant.handle(TextMessage(OWNER, "hello"))
    assert "did not answer within 0.3 s (LLM_TIMEOUT_SECONDS)" in messenger.texts[-1]
    assert len(model.requests) == 1  # no retry while the server may still be working on it


async def test_context_too_long_retries_once_without_history(tmp_path: Path, db: Database, clock: ManualClock,
                                                             model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"})
    assistant, messenger = await build_assistant(settings, db, clock)
    model.respond("Hi there.")
    await assistant.handle(TextMessage(OWNER, "hello"))
    model.fail(400, "This model's maximum context length is 8192 tokens.", code="context_length_exceeded")
    model.respond("It is 9:00.")
    await assistant.handle(TextMessage(OWNER, "what time is it?"))
    assert messenger.texts[-1] == "It is 9:00."
    refused, retried = model.requests[1:]
    contents = [m["content"] for m in retried["messages"]]
    assert "hello" in [m["content"] for m in refused["messages"]]
    assert "hello" not in contents and "Hi there." not in contents and contents[-1].endswith("\n\nwhat time is it?")


async def test_context_too_long_twice_says_so(tmp_path: Path, db: Database, clock: ManualClock,
                                              model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"})
    assistant, messenger = await build_assistant(settings, db, clock)
    model.respond("Hi there.")
    await assistant.handle(TextMessage(OWNER, "hello"))
    for _ in range(2):
        model.fail(400, "This model's maximum context length is 8192 tokens.", code="context_length_exceeded")
    await assistant.handle(TextMessage(OWNER, "x " * 3000))
    assert len(model.requests) == 3
    assert "doesn't fit the model's context even without the earlier messages" in messenger.texts[-1]


async def test_failure_after_a_tool_ran_says_what_was_done(tmp_path: Path, db: Database, clock: ManualClock,
                                                           model: ScriptedModel) -> None:
    pantry = Pantry()
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"})
    assistant, messenger = await build_assistant(settings, db, clock, skills=[pantry])
    model.call("add_item", item="eggs")
    model.fail(500, body={"detail": [{"loc": ["body", "messages", 3, "content"],
                                      "msg": "Input should be a valid string"}]})
    await assistant.handle(TextMessage(OWNER, "add eggs"))
    assert pantry.items == ["milk", "eggs"]
    reply = messenger.texts[-1]
    assert "The model server failed: body.messages.3.content: Input should be a valid string." in reply
    receipts = [r.summary for r in messenger.sent[-1][1].receipts]
    assert len(receipts) == 1 and "eggs" in receipts[0] and receipts[0].endswith(": done")
    assert "try again" not in reply
    assert json.loads(model.requests[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]) == {"item": "eggs"}


TOOL = {"type": "function", "function": {"name": "list_items", "description": "List the pantry items.",
                                         "parameters": {"type": "object", "properties": {}}}}


async def test_a_server_that_fails_on_required_tool_choice_gets_auto_from_then_on(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    # llama-cpp-python's chatml-function-calling format answers "required" with a bare 500.
    model.fail(500, body={"error": {"message": "", "type": "internal_server_error"}})
    model.say("first")
    model.say("second")
    client = ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)
    said = [(await client.complete(Role.CHAT, [{"role": "user", "content": "hi"}], tools=[TOOL],
                                   tool_choice="required")).text for _ in range(2)]
    await client.close()
    assert said == ["first", "second"]
    assert [r["tool_choice"] for r in model.requests] == ["required", "auto", "auto"]


async def test_a_failure_that_auto_does_not_fix_keeps_required(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    model.fail(500, "Only user, assistant and tool roles are supported")
    model.fail(500, "Only user, assistant and tool roles are supported")
    model.say("fine")
    client = ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)
    with pytest.raises(ModelError) as caught:
        await client.complete(Role.CHAT, [{"role": "user", "content": "hi"}], tools=[TOOL], tool_choice="required")
    assert "Only user, assistant and tool roles" in caught.value.reason
    await client.complete(Role.CHAT, [{"role": "user", "content": "hi"}], tools=[TOOL], tool_choice="required")
    await client.close()
    assert [r["tool_choice"] for r in model.requests] == ["required", "auto", "required"]
