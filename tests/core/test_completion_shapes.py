"""What a chat completion's JSON turns into, read straight from the wire: the shapes servers
really send, and the broken ones, which are ModelGarbage (never a crash)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.errors import ModelGarbage
from bot.llm import ModelClient, Role
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import make_settings

MESSAGES = [{"role": "user", "content": "hola"}]


def _client(tmp_path: Path, model: ScriptedModel, db: Database, clock: ManualClock) -> ModelClient:
    return ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)


async def test_usage_cached_tokens_and_a_tool_call_without_id(tmp_path: Path, model: ScriptedModel, db: Database,
                                                              clock: ManualClock) -> None:
    model.garbage(json.dumps({
        "model": "served-name",
        "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"type": "function", "function": {"name": "respond", "arguments": {"text": "hi"}}}]}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 64}},
    }))
    client = _client(tmp_path, model, db, clock)
    try:
        completion = await client.complete(Role.CHAT, MESSAGES, tools=[{"type": "function", "function": {
            "name": "respond", "parameters": {"type": "object"}}}])
    finally:
        await client.close()
    [call] = completion.tool_calls
    assert call.name == "respond" and json.loads(call.arguments) == {"text": "hi"}
    assert len(call.id) == 9 and call.id.isalnum()
    assert completion.text is None and completion.model == "served-name"
    assert (completion.usage.prompt_tokens, completion.usage.cached_tokens, completion.usage.completion_tokens) \
        == (120, 64, 7)
    row = await db.fetchone("SELECT ok, prompt_tokens, cached_tokens, model FROM model_calls")
    assert (row["ok"], row["prompt_tokens"], row["cached_tokens"]) == (1, 120, 64)


async def test_plain_text_without_usage(tmp_path: Path, model: ScriptedModel, db: Database,
                                        clock: ManualClock) -> None:
    model.garbage(json.dumps({"choices": [{"message": {"content": "Hola."}}]}))
    client = _client(tmp_path, model, db, clock)
    try:
        completion = await client.complete(Role.CHAT, MESSAGES)
    finally:
        await client.close()
    assert completion.text == "Hola." and completion.tool_calls == () and completion.usage.prompt_tokens == 0
    assert completion.model == "scripted-chat"  # the configured name when the server gives none


@pytest.mark.parametrize("body", [
    '{"choices": [{"message": ',  # cut short
    "[]",
    '{"choices": []}',
    '{"choices": [{"index": 0}]}',
    '{"choices": [{"message": {"content": null}}]}',
    '{"choices": [{"message": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]}',
    '{"choices": [{"message": {"tool_calls": ["respond"]}}]}',
])
async def test_broken_answers_are_model_garbage(body: str, tmp_path: Path, model: ScriptedModel, db: Database,
                                                clock: ManualClock) -> None:
    model.garbage(body)
    client = _client(tmp_path, model, db, clock)
    try:
        with pytest.raises(ModelGarbage):
            await client.complete(Role.CHAT, MESSAGES)
    finally:
        await client.close()
    row = await db.fetchone("SELECT ok FROM model_calls")
    assert row["ok"] == 0  # the failed call is on record too
