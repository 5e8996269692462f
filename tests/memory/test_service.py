"""The memory wired into a real assistant turn: prompt sources, turn listener, skills."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.clock import ManualClock
from bot.config import Settings
from bot.core.events import Platform, TextMessage
from bot.scheduler import Scheduler
from memory.db import Database
from tests.memory.conftest import ANA, BOB, card, consolidation, conversation
from tests.scripted_model import ScriptedModel
from tests.support import RecordingMessenger, build_assistant
from tools.skills.memory import install_memory


async def test_a_turn_sees_profile_and_memories_and_triggers_consolidation(
        settings: Settings, db: Database, model: ScriptedModel, clock: ManualClock) -> None:
    messenger = RecordingMessenger(platform=Platform.TELEGRAM)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    service = await install_memory(assistant, Scheduler(db, clock), settings)
    assert {"memory", "timeline", "diary"} <= set(assistant.deps.registry.skills)
    assert {"recall", "remember", "forget", "forget_preview", "open_card", "timeline_list", "timeline_search",
            "timeline_log", "diary_read", "diary_list", "diary_search"} <= {t.name for t in assistant.deps.registry}

    ids = await conversation(db, ANA, datetime(2026, 2, 1, 10, tzinfo=UTC), [
        ("user", "My car is a red Seat Ibiza, plate 1234-KLM, and the ITV is due in May."),
    ])
    bob = await conversation(db, BOB, datetime(2026, 2, 1, 10, tzinfo=UTC), [
        ("user", "My car is a blue Tesla and I never want reminders about it."),
    ])
    model.say(consolidation(cards=[card("Ana's car", "Red Seat Ibiza 1234-KLM; ITV due in May.", ids)],
                            profile={"house_rules": ["Be brief"]}))
    await service.consolidate(ANA.user_key)
    model.say(consolidation(cards=[card("Bob's car", "Bob drives a blue Tesla.", bob)]))
    await service.consolidate(BOB.user_key)

    long_question = ("When is the ITV of my car due? I also wonder whether I should book the garage "
                     "before the summer trip, because last year the queue was very long. ") * 2
    model.respond("The ITV of your Seat Ibiza is due in May.")
    model.say(consolidation())  # the listener consolidates: the question passed the token threshold
    await assistant.handle(TextMessage(ANA, long_question))
    request = next(r for r in reversed(model.requests) if r["model"] == "scripted-chat")
    prompt_text = "\n".join(m["content"] for m in request["messages"])
    systems = [m["content"] for m in request["messages"] if m["role"] == "system"]
    assert len(systems) == 1 and "Be brief" in systems[0] and "1234-KLM" not in systems[0]  # stable prefix
    assert "1234-KLM" in request["messages"][-1]["content"]  # the retrieved memory: the newest message's note
    assert "Tesla" not in prompt_text  # never another user's memory
    assert messenger.texts[-1] == "The ITV of your Seat Ibiza is due in May."
    # The listener runs after the turn, in the background: the answer did not wait for it.
    for _ in range(400):
        if not await service.consolidator.pending(ANA.user_key):  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.025)
    assert model.requests[-1]["model"] == "scripted-memory"
    assert await service.consolidator.pending(ANA.user_key) == []  # type: ignore[union-attr]


async def test_remember_and_timeline_log_share_one_path_and_refuse_an_empty_fact(
        settings: Settings, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    import pytest

    from bot.errors import ToolError
    from memory.service import MemoryService
    from memory.timeline import Category
    from tools.skills.memory import MemorySkill
    from tools.skills.timeline import TimelineSkill

    assert MemorySkill.remember.parameters["properties"]["slot"]["description"].startswith("if it replaces")
    assert TimelineSkill.timeline_log.parameters["properties"]["category"]["description"] == "what kind of fact"
    messenger = RecordingMessenger(platform=Platform.TELEGRAM)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    service: MemoryService = await install_memory(assistant, Scheduler(db, clock), settings)
    with pytest.raises(ToolError, match="empty"):
        await service.remember(ANA.user_key, "   ", Category.OTHER)
    done = await service.remember(ANA.user_key, "  Moved to Lisbon  ", Category.OTHER)
    again = await service.remember(ANA.user_key, "Moved to Lisbon", Category.OTHER)
    assert again.duplicate and again.fact_id == done.fact_id
