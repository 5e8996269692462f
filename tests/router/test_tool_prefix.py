"""A conversation's tool list only grows, in a fixed order, so providers can cache the prefix."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import ManualClock
from bot.core.events import CommandMessage, TextMessage
from bot.core.routing import RouteDecision, RouteRequest
from bot.core.routing.toolset import ConversationToolSets
from bot.llm import cache_key
from memory.db import Database
from tests.router.test_deferred import VaultSkill
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings
from tools.registry import Skill, tool

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class DiarySkill(Skill):
    id = "jotter"
    description = "a jotter"

    @tool()
    async def jot(self, line: str) -> str:
        """Jot a line down."""
        return line


class ScriptedRouter:
    """Routes by a fixed table, so the test is about exposure, not about routing."""

    def __init__(self, table: dict[str, frozenset[str]]) -> None:
        self.table = table

    async def route(self, request: RouteRequest, available: dict[str, str]) -> RouteDecision:
        return RouteDecision(self.table.get(request.text, frozenset()))


async def test_the_set_grows_in_first_seen_order_and_restarts_after_a_pause_or_a_fresh_chat() -> None:
    sets = ConversationToolSets(timedelta(minutes=60))
    assert await sets.skills_for("c", frozenset({"web"}), NOW, fresh=True) == ("web",)
    later = NOW + timedelta(minutes=5)
    assert await sets.skills_for("c", frozenset({"agenda", "email"}), later, fresh=False) == (
        "web", "agenda", "email")
    assert await sets.skills_for("c", frozenset(), later, fresh=False) == ("web", "agenda", "email")
    assert await sets.skills_for("c", frozenset({"web", "diary"}), later, fresh=False, fail_open=True) == (
        "web", "agenda", "email", "diary")
    assert await sets.skills_for("c", frozenset(), later, fresh=False) == ("web", "agenda", "email")  # not kept
    assert await sets.skills_for("other", frozenset({"notes"}), later, fresh=False) == ("notes",)
    assert await sets.skills_for("c", frozenset({"notes"}), later + timedelta(minutes=61), fresh=False) == ("notes",)
    assert await sets.skills_for("c", frozenset({"tasks"}), later + timedelta(minutes=62), fresh=True) == ("tasks",)
    per_turn = ConversationToolSets(timedelta(0))
    await per_turn.skills_for("c", frozenset({"web"}), NOW, fresh=True)
    assert await per_turn.skills_for("c", frozenset({"notes"}), NOW, fresh=False) == ("notes",)


async def test_a_restart_keeps_each_conversations_set_and_its_order(db: Database) -> None:
    before = ConversationToolSets(timedelta(minutes=60), db)
    await before.skills_for("c", frozenset({"web"}), NOW, fresh=True)
    await before.skills_for("c", frozenset({"agenda"}), NOW + timedelta(minutes=1), fresh=False)
    after = ConversationToolSets(timedelta(minutes=60), db)  # a new process on the same file
    assert await after.skills_for("c", frozenset({"email"}), NOW + timedelta(minutes=2), fresh=False) == (
        "web", "agenda", "email")
    assert await after.skills_for("d", frozenset({"notes"}), NOW, fresh=False) == ("notes",)
    again = ConversationToolSets(timedelta(minutes=60), db)
    # The stored set is subject to the same boundaries: a long pause starts afresh.
    assert await again.skills_for("c", frozenset(), NOW + timedelta(hours=3), fresh=False) == ()
    await db.execute("UPDATE conversation_tool_sets SET skills = 'not json' WHERE chat_key = 'd'")
    damaged = ConversationToolSets(timedelta(minutes=60), db)
    assert await damaged.skills_for("d", frozenset({"web"}), NOW, fresh=False) == ("web",)


async def test_turns_keep_the_same_tool_prefix_until_reset(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    router = ScriptedRouter({"open the vault": frozenset({"vault"}), "jot this": frozenset({"jotter"})})
    assistant, _ = await build_assistant(make_settings(tmp_path, model.base_url), db, clock,
                                         skills=[VaultSkill(), DiarySkill()], router=router)
    for text in ("open the vault", "gracias", "jot this", "and again"):
        model.respond("Vale.")
        await assistant.handle(TextMessage(OWNER, text))
        clock.set(clock.now() + timedelta(minutes=3))
    names = [model.tool_names(index) for index in range(4)]
    vault = [name for name in names[0] if name not in ("current_location", "current_time", "respond")]
    assert vault and names[1] == names[0]  # thanks did not shrink the list
    # The new skill's tools come after the old ones: the old prefix is untouched.
    tools = [json.dumps(request["tools"]) for request in model.requests]
    assert json.loads(tools[2])[: len(names[0]) - 1] == json.loads(tools[0])[:-1]
    assert "jot" in names[2] and names[3] == names[2]
    route = await db.fetchone("SELECT route_json FROM turns ORDER BY id DESC LIMIT 1")
    assert route is not None and json.loads(route["route_json"])["exposed"] == ["vault", "jotter"]
    await assistant.handle(CommandMessage(OWNER, "reset"))
    model.respond("Hola.")
    await assistant.handle(TextMessage(OWNER, "hola"))
    assert model.tool_names(4) == ["current_location", "current_time", "respond"]


async def test_the_cache_key_goes_only_where_it_is_accepted(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    auto = make_settings(tmp_path, model.base_url)
    assert not auto.llm.sends_prompt_cache_key  # a local server: no unknown fields
    assert make_settings(tmp_path, "https://api.openai.com/v1").llm.sends_prompt_cache_key
    assistant, _ = await build_assistant(auto, db, clock)
    model.respond("Vale.")
    await assistant.handle(TextMessage(OWNER, "hola"))
    assert "prompt_cache_key" not in model.requests[-1]
    forced = make_settings(tmp_path, model.base_url, llm={"prompt_cache_key": "on"})
    assistant, _ = await build_assistant(forced, db, clock)
    model.respond("Vale.")
    await assistant.handle(TextMessage(OWNER, "hola otra vez"))
    key = model.requests[-1]["prompt_cache_key"]
    assert key == cache_key(OWNER.user_key) and OWNER.user_key not in key


async def test_the_history_window_steps_so_its_start_stays_put_for_several_turns(db: Database) -> None:
    from memory.messages import MessageStore

    store = MessageStore(db)
    for n in range(1, 31):
        await store.add(OWNER, "user", f"message {n}", NOW + timedelta(minutes=n))
    starts = []
    for seen in range(10, 31):  # the window as turns saw it when `seen` messages existed
        rows = await db.fetchall("SELECT id FROM messages ORDER BY id")
        before = rows[seen - 1]["id"] + 1
        window = await store.recent(OWNER, 10, before_id=before, stepped=True)
        assert 5 < len(window) <= 10 and window[-1].content == f"message {seen}"
        starts.append(window[0].content)
    # The first message changes every 5 turns (a sliding window would change it every turn).
    assert len(set(starts)) == 5
    sliding = await store.recent(OWNER, 10)
    assert [m.content for m in sliding] == [f"message {n}" for n in range(21, 31)]
