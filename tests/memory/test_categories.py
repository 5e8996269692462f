"""Questions asking for a kind of thing ("what pets", "qué deportes") also search the kind's
usual members, and that search reads only live cards: forgetting leaves it nothing to find."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memory.cards import CardDraft
from memory.categories import category_members
from memory.db import Database
from memory.forget import Verification, parse_target
from memory.retrieval import RetrievalTuning, Retriever
from memory.service import MemoryService
from tests.memory.conftest import ANA, BOB
from tests.memory.test_forget import file_bytes

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def test_a_category_word_expands_to_its_usual_members_in_the_questions_language() -> None:
    pets = category_members("What pets does Ana have?")
    assert "dog" in pets and "cat" in pets and "perro" not in pets
    mascotas = category_members("¿Qué mascotas tiene Ana?")
    assert "perro" in mascotas and "dog" not in mascotas
    assert category_members("When is the dentist appointment?") == []


def test_the_questions_own_words_are_not_repeated_and_several_kinds_share_the_budget() -> None:
    assert "reading" not in category_members("Which hobbies besides reading?")
    both = category_members("What sports and instruments does Tim play?", limit=6)
    assert len(both) == 6
    assert {"soccer", "guitar"} <= set(both)  # each kind's likeliest member comes first


async def add(service: MemoryService, user_key: str, title: str, synthesis: str) -> int:
    draft = CardDraft(day=NOW.date(), started_at=NOW, ended_at=NOW, title=title, synthesis=synthesis)
    [vector] = await service.embedder.embed([draft.body], is_query=False)
    async with service.db.transaction() as tx:
        return await service.cards.insert(tx, user_key, draft, vector, NOW)


async def test_a_memory_naming_a_member_is_found_for_a_question_naming_the_kind(service: MemoryService) -> None:
    dog = await add(service, ANA.user_key, "Walk", "Took Toby the dog along the river this morning.")
    for i in range(6):
        await add(service, ANA.user_key, f"Errand {i}", f"Paid the electricity bill number {i} at the bank.")
    question = "What pets does she have?"  # no word in common with the walk
    plain = Retriever(service.cards, service.embedder, replace(RetrievalTuning(), category_weight=0.0))
    without = {hit.card.id: hit.score for hit in await plain.search(ANA.user_key, question, 10)}
    found = {hit.card.id: hit.score for hit in await service.retriever.search(ANA.user_key, question, 10)}
    assert dog in found and found[dog] > without.get(dog, 0.0)
    assert max(found, key=lambda card_id: found[card_id]) == dog


async def test_forgetting_a_card_leaves_the_category_search_nothing_of_it(service: MemoryService,
                                                                         db: Database) -> None:
    dog = await add(service, ANA.user_key, "Walk", "Took Quimbaya the dog along the river this morning.")
    await add(service, BOB.user_key, "Nap", "Bob's cat sleeps all day.")
    plan = await service.forgetter.plan(ANA.user_key, parse_target(f"card {dog}"))
    report = await service.forgetter.execute(plan)
    assert report.verification is Verification.VERIFIED_GONE, report.render()
    hits = await service.retriever.search(ANA.user_key, "What pets does she have?", 10)
    assert hits == []  # Bob's card, which names a pet, is not Ana's
    assert b"along the river" not in file_bytes(db)
