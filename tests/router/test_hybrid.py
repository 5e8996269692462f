"""The optional model classifier: widens the embedding choice, never blocks it."""

from __future__ import annotations

import json
from pathlib import Path

from bot.clock import ManualClock
from bot.config import load_settings
from bot.core.events import ChatRef, Platform
from bot.core.routing import RouteRequest
from bot.core.routing.router import EmbeddingRouter, FailOpenRouter, HybridRouter, ModelSkillClassifier, build_router
from bot.llm import ModelClient
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import make_settings

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


async def test_model_answer_is_added_to_the_embedding_choice(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel, make_router, available) -> None:
    client = ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)
    verdict = {skill: skill in ("environment", "diary") for skill in available}
    model.say(json.dumps(verdict))
    router = HybridRouter(make_router(), ModelSkillClassifier(client, budget_ms=2_000))
    decision = await router.route(RouteRequest(CHAT, "will it rain tomorrow?"), available)
    assert {"environment", "diary"} <= decision.skills
    assert decision.scores["model:diary"] == 1.0
    body = model.requests[0]
    assert body["response_format"]["json_schema"]["schema"]["required"] == list(available)
    assert "will it rain tomorrow?" in body["messages"][-1]["content"]
    await client.close()


async def test_slow_or_broken_model_leaves_the_embedding_choice(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel, make_router, available) -> None:
    client = ModelClient(make_settings(tmp_path, model.base_url).llm, db, clock)
    local: EmbeddingRouter = make_router()
    router = FailOpenRouter(HybridRouter(local, ModelSkillClassifier(client, budget_ms=300)), budget_ms=5_000)
    model.hang(2.0)
    slow = await router.route(RouteRequest(CHAT, "will it rain tomorrow?"), available)
    assert not slow.fail_open and "environment" in slow.skills and "model skipped" in slow.reason
    model.say("not json at all")
    garbage = await router.route(RouteRequest(CHAT, "will it rain tomorrow?"), available)
    assert not garbage.fail_open and "model skipped (ModelError)" in garbage.reason
    assert len(garbage.skills) < len(available)
    await client.close()


async def test_build_router_in_hybrid_mode(tmp_path: Path, db: Database, clock: ManualClock,
                                           model: ScriptedModel, available) -> None:
    settings = load_settings(None, core={"data_dir": tmp_path}, router={"mode": "hybrid"},
                             llm={"base_url": model.base_url, "chat_model": "m", "router_model": "small"})
    client = ModelClient(settings.llm, db, clock)
    router = build_router(settings, model=client)
    model.say(json.dumps({skill: skill == "email" for skill in available}))
    decision = await router.route(RouteRequest(CHAT, "will it rain tomorrow?"), available)
    assert {"environment", "email"} <= decision.skills
    assert model.requests[0]["model"] == "small"  # the router role's model
    await client.close()
