"""Consolidation: model output validated, written in one transaction, or nothing at all."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.clock import ManualClock
from memory.consolidation import PassOutcome
from memory.db import Database, Transaction
from memory.profile import ProfileOutcome, ProfileSection
from memory.service import MemoryService
from memory.timeline import FactDraft, TimelineStore
from tests.memory.conftest import ANA, card, consolidation, conversation
from tests.scripted_model import ScriptedModel

START = datetime(2026, 3, 2, 22, 30, tzinfo=UTC)  # 23:30 in Madrid: the local day is 2 March


async def _counts(db: Database) -> dict[str, int]:
    counts = {}
    for table in ("memory_cards", "memory_cards_fts", "memory_card_sources", "memory_timeline",
                  "memory_timeline_fts", "memory_profile"):
        rows = await db.fetchall(f"SELECT COUNT(*) AS n FROM {table}")
        counts[table] = rows[0]["n"]
    rows = await db.fetchall("SELECT COUNT(*) AS n FROM messages WHERE processed = 1")
    counts["processed"] = rows[0]["n"]
    return counts


async def test_valid_pass_writes_cards_profile_timeline_and_marks_processed(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    ids = await conversation(db, ANA, START, [
        ("user", "I moved to Valencia last week and I start at Acme Robotics on Monday."),
        ("assistant", "Congratulations on the move and the new job!"),
        ("user", "Always answer me in Spanish, please."),
    ])
    model.say(consolidation(
        cards=[card("Move to Valencia and new job", "Ana moved to Valencia and starts at Acme Robotics.",
                    ids[:2], topics=["moving", "work"], facts=["Lives in Valencia"],
                    decisions=["Start at Acme on Monday"])],
        profile={"identity": ["Lives in Valencia"], "house_rules": ["Answer in Spanish"]},
        timeline=[{"message_id": ids[0], "category": "home", "fact": "Moved to Valencia", "slot": "home_city"},
                  {"message_id": ids[0], "category": "work", "fact": "Starts at Acme Robotics", "slot": "employer"}],
    ))
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.outcome is PassOutcome.WRITTEN
    assert result.facts_added == 2 and len(result.cards) == 1
    stored = await service.cards.get(ANA.user_key, result.cards[0])
    assert stored is not None and stored.source_ids == tuple(ids[:2])
    opened = await service.cards.source_messages(ANA.user_key, stored.id)
    assert opened[0].content.startswith("I moved")
    profile = await service.profile.get(ANA.user_key)
    assert profile.sections[ProfileSection.HOUSE_RULES] == ("Answer in Spanish",)
    facts = await service.timeline.for_user(ANA.user_key)
    # The date comes from the message (23:30 Madrid on 2 March), not from the model.
    assert {f.day for f in facts} == {date(2026, 3, 2)}
    assert all(f.source_message_id == ids[0] for f in facts)
    assert (await _counts(db))["processed"] == 3
    assert "Answer in Spanish" in (await service.stable(ANA.user_key) or "")
    sent = model.requests[-1]
    assert sent["model"] == "scripted-memory" and sent["response_format"] == {"type": "json_object"}


async def test_invalid_output_is_retried_once_then_accepted(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    ids = await conversation(db, ANA, START, [("user", "My sister Carla has a baby girl called Luna.")])
    model.say("this is not json")
    model.say(consolidation(cards=[card("Niece Luna", "Carla had a baby girl, Luna.", ids)]))
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.outcome is PassOutcome.WRITTEN
    assert len(model.requests) == 2
    assert "invalid" in model.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("bad", [
    "not json at all",
    '{"cards": [{"title": "x", "synthesis": "y", "message_ids": []}]}',  # no source ids
    '{"cards": [], "timeline": [{"message_id": 1, "category": "gossip", "fact": "x"}]}',  # bad enum
    '{"cards": [{"title": "x", "synthesis": "y", "message_ids": [999]}]}',  # unknown message id
    '{"cards": [], "surprise": true}',  # unexpected key
])
async def test_invalid_twice_skips_the_pass_and_writes_nothing(
        service: MemoryService, db: Database, model: ScriptedModel, bad: str) -> None:
    await conversation(db, ANA, START, [("user", "I broke my wrist skiing today.")])
    before = await _counts(db)
    model.say(bad)
    model.say(bad)
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.outcome is PassOutcome.INVALID_OUTPUT
    assert await _counts(db) == before
    assert len(await service.consolidator.pending(ANA.user_key)) == 1  # type: ignore[union-attr]
    rows = await db.fetchall("SELECT outcome FROM memory_passes ORDER BY id DESC LIMIT 1")
    assert rows[0]["outcome"] == "invalid_output"


async def test_invented_section_is_dropped_and_over_budget_rewrite_keeps_previous(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    ids = await conversation(db, ANA, START, [("user", "I'm vegetarian and I love jazz.")])
    model.say(consolidation(profile={"preferences": ["Vegetarian", "Loves jazz"],
                                     "zodiac_sign": ["Leo"]}))
    first = await service.consolidate(ANA.user_key)
    assert first is not None and first.profile is ProfileOutcome.UPDATED
    assert first.dropped_sections == ("zodiac_sign",)
    profile = await service.profile.get(ANA.user_key)
    assert profile.sections == {ProfileSection.PREFERENCES: ("Vegetarian", "Loves jazz")}
    assert "Leo" not in profile.render()

    await conversation(db, ANA, START, [("user", "Tell me everything you know about me in detail.")])
    huge = ["x" * 200 for _ in range(30)]  # ~6000 characters, the budget is 2500
    model.say(consolidation(profile={"preferences": ["Vegan now"], "people": huge}))
    second = await service.consolidate(ANA.user_key)
    assert second is not None and second.profile is ProfileOutcome.OVER_BUDGET
    # The previous version stays whole: not even the small preferences change went in.
    assert await service.profile.get(ANA.user_key) == profile
    assert ids


class _CrashingTimeline(TimelineStore):
    async def add(self, tx: Transaction, user_key: str, draft: FactDraft, at: datetime):  # type: ignore[no-untyped-def]
        await super().add(tx, user_key, draft, at)
        raise RuntimeError("power cut mid-pass")


async def test_a_crash_mid_pass_leaves_nothing_half_written(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    ids = await conversation(db, ANA, START, [("user", "I ran my first half marathon in 1:58!")])
    consolidator = service.consolidator
    assert consolidator is not None
    consolidator._timeline = _CrashingTimeline(db)
    before = await _counts(db)
    model.say(consolidation(
        cards=[card("Half marathon", "Ana ran her first half marathon in 1:58.", ids)],
        profile={"health": ["Runs half marathons"]},
        timeline=[{"message_id": ids[0], "category": "milestone", "fact": "First half marathon, 1:58"}]))
    with pytest.raises(RuntimeError, match="power cut"):
        await consolidator.run(ANA.user_key)
    assert await _counts(db) == before
    assert await service.vectors.nearest(ANA.user_key, (await service.embedder.embed(
        ["half marathon"], is_query=True))[0], 5) == []
    # The next pass (no crash) picks the same messages up.
    consolidator._timeline = service.timeline
    model.say(consolidation(cards=[card("Half marathon", "Ana ran her first half marathon in 1:58.", ids)]))
    result = await consolidator.run(ANA.user_key)
    assert result.outcome is PassOutcome.WRITTEN and result.messages == 1


async def test_same_fact_same_day_once_and_a_new_slot_value_ends_the_old(
        service: MemoryService, db: Database, model: ScriptedModel, clock: ManualClock) -> None:
    first = await conversation(db, ANA, datetime(2026, 1, 10, 10, tzinfo=UTC), [
        ("user", "I live in Sevilla."), ("user", "As I said, I live in Sevilla!")])
    model.say(consolidation(timeline=[
        {"message_id": first[0], "category": "home", "fact": "Lives in Sevilla", "slot": "home_city"},
        {"message_id": first[1], "category": "home", "fact": "lives in  sevilla.", "slot": "home_city"},
    ]))
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.facts_added == 1
    later = await conversation(db, ANA, datetime(2026, 2, 20, 10, tzinfo=UTC), [
        ("user", "Big news: I moved to Bilbao!")])
    model.say(consolidation(timeline=[
        {"message_id": later[0], "category": "home", "fact": "Moved to Bilbao", "slot": "home_city"}]))
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.facts_ended == 1
    facts = {f.fact: f for f in await service.timeline.for_user(ANA.user_key)}
    assert facts["Lives in Sevilla"].ended_on == date(2026, 2, 20)
    assert facts["Lives in Sevilla"].replaced_by == facts["Moved to Bilbao"].id
    assert facts["Moved to Bilbao"].ended_on is None
    # The consolidation prompt showed the open slot, so the model can reuse its name.
    assert "home_city: Lives in Sevilla" in model.requests[-1]["messages"][1]["content"]


async def test_threshold_and_idle_triggers(service: MemoryService, db: Database, model: ScriptedModel,
                                           clock: ManualClock) -> None:
    consolidator = service.consolidator
    assert consolidator is not None
    await conversation(db, ANA, clock.now(), [("user", "hola")])
    assert not await consolidator.due(ANA.user_key, idle_check=False)
    await service.after_turn(ANA, 1)
    assert model.requests == []  # below the token threshold: no model call
    assert await service.consolidate_idle(clock.now()) == []  # not idle yet
    await clock.advance(31 * 60)
    model.say(consolidation())
    assert await service.consolidate_idle(clock.now()) == [ANA.user_key]
    long_text = "Hoy he estado revisando el presupuesto de la reforma de la cocina con el arquitecto. " * 6
    ids = await conversation(db, ANA, clock.now(), [("user", long_text)])
    model.say(consolidation(cards=[card("Reforma", "Presupuesto de la reforma de la cocina.", ids)]))
    await service.after_turn(ANA, 2)
    assert await consolidator.pending(ANA.user_key) == []


async def test_failed_passes_back_off_instead_of_asking_after_every_turn(
        service: MemoryService, db: Database, model: ScriptedModel, clock: ManualClock) -> None:
    consolidator = service.consolidator
    assert consolidator is not None
    long_text = "Hoy he estado revisando el presupuesto de la reforma de la cocina con el arquitecto. " * 6
    await conversation(db, ANA, clock.now(), [("user", long_text)])
    model.say("this is not JSON")
    model.say("still not JSON")
    await service.after_turn(ANA, 1)
    asked = len(model.requests)
    assert asked >= 1 and await consolidator.pending(ANA.user_key) != []
    for _ in range(5):  # more turns right after the failure: no new requests
        await service.after_turn(ANA, 2)
    assert len(model.requests) == asked
    await clock.advance(6 * 60)  # past the first backoff: asked again
    model.say("no JSON either")
    model.say("no JSON either")
    await service.after_turn(ANA, 3)
    assert len(model.requests) > asked
    again = len(model.requests)
    await clock.advance(6 * 60)  # the second backoff is twice as long
    await service.after_turn(ANA, 4)
    assert len(model.requests) == again
