"""Hybrid recall, age ordering, prompt injection budget, and per-user isolation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.config import Settings
from bot.errors import ToolError
from memory.cards import CardDraft
from memory.db import Database
from memory.retrieval import RetrievalTuning, Retriever
from memory.service import MemoryService
from tests.memory.conftest import ANA, BOB
from tools.context import ToolContext
from tools.skills.memory import MemorySkill

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


async def add_card(service: MemoryService, user_key: str, title: str, synthesis: str,
                   when: datetime = NOW, topics: tuple[str, ...] = ()) -> int:
    draft = CardDraft(day=when.date(), started_at=when, ended_at=when, title=title, synthesis=synthesis,
                      topics=topics)
    [vector] = await service.embedder.embed([draft.body], is_query=False)
    async with service.db.transaction() as tx:
        return await service.cards.insert(tx, user_key, draft, vector, when)


@pytest.fixture
async def filled(service: MemoryService) -> MemoryService:
    await add_card(service, ANA.user_key, "Dentist", "Ana has a dentist appointment for a broken molar.")
    await add_card(service, ANA.user_key, "Paella recipe", "Ana's grandmother's paella uses rabbit and snails.")
    await add_card(service, ANA.user_key, "Car insurance", "The Seat Ibiza insurance renews in April with Mapfre.")
    await add_card(service, ANA.user_key, "Trip to Lisbon", "Ana plans a weekend in Lisbon with her friend Marta.")
    await add_card(service, BOB.user_key, "Bob's secret", "Bob keeps his dentist fear and his Lisbon plans private.")
    return service


async def test_keyword_and_meaning_both_find(filled: MemoryService) -> None:
    by_word = await filled.recall(ANA.user_key, "Mapfre")
    assert by_word[0].card.title == "Car insurance" and by_word[0].keyword_rank == 1
    # No shared word: found by the vector side alone.
    by_meaning = await filled.recall(ANA.user_key, "toothache doctor visit")
    assert by_meaning[0].card.title == "Dentist" and by_meaning[0].vector_rank is not None


async def test_nothing_of_one_user_is_retrieved_for_another(filled: MemoryService) -> None:
    for query in ("dentist", "Lisbon", "Bob secret fear", "paella"):
        hits = await filled.recall(BOB.user_key, query, limit=20)
        assert {hit.card.user_key for hit in hits} == {BOB.user_key}
        assert all("Ana" not in hit.card.synthesis for hit in hits)
    prompt = await filled.volatile(BOB, "what about the paella recipe and the car insurance?")
    assert prompt is None or ("paella" not in prompt.lower() and "Mapfre" not in prompt)
    assert await filled.stable(BOB.user_key) is None
    ana_card = (await filled.recall(ANA.user_key, "paella"))[0].card.id
    assert await filled.cards.get(BOB.user_key, ana_card) is None
    assert await filled.cards.syntheses(BOB.user_key, [ana_card]) == {}  # the lighter read filters the same way
    assert "paella" in (await filled.cards.syntheses(ANA.user_key, [ana_card]))[ana_card]


async def test_card_of_another_user_cannot_be_opened_by_tool(filled: MemoryService, settings: Settings,
                                                            clock: ManualClock, db: Database) -> None:
    from memory.locations import LocationStore

    skill = MemorySkill(filled)
    ctx = ToolContext(chat=BOB, clock=clock, timezone=settings.core.zone, locations=LocationStore(db),
                      location_max_age=timedelta(hours=1))
    ana_card = (await filled.recall(ANA.user_key, "paella"))[0].card.id
    with pytest.raises(ToolError):
        await MemorySkill.open_card.func(skill, ctx, ana_card)
    result = await MemorySkill.recall.func(skill, ctx, "paella rabbit snails", 10)
    assert "paella" not in result.lower()


async def test_age_reorders_but_never_removes(service: MemoryService) -> None:
    old = await add_card(service, ANA.user_key, "Boiler repair", "The boiler was repaired by Fontanería Ruiz.",
                         when=NOW - timedelta(days=3 * 365))
    new = await add_card(service, ANA.user_key, "Boiler repair", "The boiler was repaired by Fontanería Ruiz.",
                         when=NOW - timedelta(days=2))
    hits = await service.retriever.search(ANA.user_key, "boiler repaired Fontanería Ruiz", 5, NOW)
    assert [hit.card.id for hit in hits][:2] == [new, old]
    without_age = await service.retriever.search(ANA.user_key, "boiler repaired Fontanería Ruiz", 5)
    assert {hit.card.id for hit in hits} == {hit.card.id for hit in without_age}


async def test_volatile_injection_respects_the_budget(service: MemoryService, settings: Settings) -> None:
    for index in range(8):
        await add_card(service, ANA.user_key, f"Garden note {index}",
                       f"Tomatoes in the garden need water every evening, note {index}. " * 6)
    text = await service.volatile(ANA, "garden tomatoes water")
    assert text is not None and "Tomatoes" in text
    body = text.split("\n", 1)[1]
    assert len(body) <= settings.memory.retrieval_budget_chars + 20


async def test_remember_dates_the_fact_by_the_users_message(service: MemoryService, db: Database) -> None:
    from memory.messages import MessageStore
    from memory.timeline import Category

    said = datetime(2026, 2, 27, 23, 30, tzinfo=UTC)  # 00:30 on 28 Feb in Madrid
    await MessageStore(db).add(ANA, "user", "Remember that I passed my driving test!", said)
    done = await service.remember(ANA.user_key, "Passed the driving test", Category.MILESTONE)
    assert not done.duplicate
    fact = await service.timeline.get(ANA.user_key, done.fact_id)
    assert fact is not None and fact.day == date(2026, 2, 28)
    again = await service.remember(ANA.user_key, "passed the driving test.", Category.MILESTONE)
    assert again.duplicate
    assert (await service.recall(ANA.user_key, "driving exam"))[0].card.id == done.card_id


async def test_a_vector_the_turn_already_made_is_used_instead_of_embedding_again(filled: MemoryService) -> None:
    [vector] = await filled.embedder.embed(["toothache doctor visit"], is_query=True)
    calls: list[list[str]] = []
    embed = filled.embedder.embed

    async def counting(texts: list[str], *, is_query: bool) -> list[object]:
        calls.append(list(texts))
        return await embed(texts, is_query=is_query)

    filled.embedder.embed = counting  # type: ignore[method-assign,assignment]
    try:
        shared = await filled.recall(ANA.user_key, "toothache doctor visit", query_vector=vector)
        assert calls == []
        own = await filled.recall(ANA.user_key, "toothache doctor visit")
        assert calls == [["toothache doctor visit"]]
    finally:
        del filled.embedder.embed  # type: ignore[method-assign]
    assert [hit.card.id for hit in shared] == [hit.card.id for hit in own]
    assert shared[0].card.title == "Dentist"


async def test_a_name_in_what_was_found_leads_to_memories_of_the_same_days(service: MemoryService) -> None:
    from dataclasses import replace

    found = await add_card(service, ANA.user_key, "Cathedral visit",
                           "Ana visited the cathedral with Marta in Toledo.", NOW)
    same_week = await add_card(service, ANA.user_key, "Marzipan", "Marta bought marzipan for the kids.",
                               NOW + timedelta(days=3))
    months_later = await add_card(service, ANA.user_key, "Rent", "Marta called about the rent.",
                                  NOW + timedelta(days=200))
    await add_card(service, BOB.user_key, "Bob and Marta", "Bob met Marta at the cathedral.", NOW)
    names = await service.db.fetchall("SELECT card_id, name, day FROM memory_card_names WHERE card_id = ?",
                                      (found,))
    assert {("marta", NOW.date().isoformat()), ("toledo", NOW.date().isoformat())} <= {
        (row["name"], row["day"]) for row in names}
    # One candidate per ranker: only the second round can bring anything else.
    service.retriever.tuning = replace(service.retriever.tuning, candidates=1)
    hits = await service.retriever.search(ANA.user_key, "cathedral visit", 5)
    assert [hit.card.id for hit in hits] == [found, same_week]
    assert months_later not in [hit.card.id for hit in hits]  # outside the time window
    service.retriever.tuning = replace(service.retriever.tuning, seeds=0)
    assert [hit.card.id for hit in await service.retriever.search(ANA.user_key, "cathedral visit", 5)] == [found]


async def test_sub_questions_from_the_memory_model_each_find_their_memories(
        tmp_path, db: Database, clock: ManualClock, model) -> None:  # type: ignore[no-untyped-def]
    import json
    from dataclasses import replace

    from bot.llm import ModelClient
    from tests.memory.conftest import memory_settings, shared_embedder

    settings = memory_settings(tmp_path, model.base_url, decompose_questions=True)
    client = ModelClient(settings.llm, db, clock)
    service = MemoryService(settings, db, clock, shared_embedder(), client)
    await service.start()
    try:
        rome = await add_card(service, ANA.user_key, "Weekend away", "Ana flew to Rome and saw the Colosseum.")
        porto = await add_card(service, ANA.user_key, "Port wine", "Ana tasted port in a cellar by the Douro.",
                               NOW - timedelta(days=90))
        await add_card(service, ANA.user_key, "Boiler", "The boiler was repaired on Monday.")
        service.retriever.tuning = replace(service.retriever.tuning, candidates=1, seeds=0)
        model.say(json.dumps({"queries": ["trip to Rome", "port wine cellar Douro"]}))
        hits = await service.recall(ANA.user_key, "Which cities did I visit?", limit=3)
        assert {rome, porto} <= {hit.card.id for hit in hits}
        sent = model.requests[-1]
        assert sent["model"] == "scripted-memory" and "Which cities did I visit?" in json.dumps(sent["messages"])

        # A model that answers badly costs nothing but the call: the question alone is searched.
        model.say("not json")
        calls = len(model.requests)
        assert len(await service.recall(ANA.user_key, "Which cities did I visit?", limit=3)) >= 1
        assert len(model.requests) == calls + 1
    finally:
        await client.close()


async def test_recall_makes_no_model_call_unless_asked_to_split(service: MemoryService, model) -> None:  # type: ignore[no-untyped-def]
    await add_card(service, ANA.user_key, "Weekend away", "Ana flew to Rome and saw the Colosseum.")
    assert service.retriever.splitter is None
    before = len(model.requests)
    assert (await service.recall(ANA.user_key, "Which cities did I visit?"))[0].card.title == "Weekend away"
    assert len(model.requests) == before


async def test_a_card_about_someone_the_question_names_comes_before_cards_that_only_mention_them(
        service: MemoryService) -> None:
    from dataclasses import replace

    mentions = await add_card(service, ANA.user_key, "Ana's balcony",
                              "Ana grows tomatoes on the balcony; Marta said the tomatoes look great.")
    about = await add_card(service, ANA.user_key, "Marta", "She grows tomatoes and peppers in her garden.")
    question = "What does Marta grow?"
    service.retriever.tuning = replace(service.retriever.tuning, subject_boost=0.0)
    plain = {hit.card.id: hit.score for hit in await service.retriever.search(ANA.user_key, question, 5)}
    service.retriever.tuning = replace(service.retriever.tuning, subject_boost=1.0)
    lifted = await service.retriever.search(ANA.user_key, question, 5)
    assert lifted[0].card.id == about
    scores = {hit.card.id: hit.score for hit in lifted}
    assert scores[about] == pytest.approx(2.0 * plain[about])  # its title names Marta
    assert scores[mentions] == pytest.approx(plain[mentions])  # it only mentions her


async def test_a_pasted_page_searches_its_most_specific_words_only(filled: MemoryService) -> None:
    from memory.text import MAX_QUERY_TERMS, fts_query

    filler = " ".join(f"w{n}" for n in range(2000))
    query = fts_query(f"{filler} Mapfre", ANA.user_key, "fact")
    assert query is not None and query.count(" OR ") == MAX_QUERY_TERMS - 1
    assert '"mapfre"' in query  # longer than every filler word, so it stays
    found = await filled.recall(ANA.user_key, f"{filler} Mapfre")
    assert found[0].card.title == "Car insurance"


async def test_a_name_in_most_memories_is_left_out_of_the_query_embedding(service: MemoryService) -> None:
    from dataclasses import replace

    for text in ("Marta said hi and asked how the week went.", "Thanks Marta, see you on Sunday!",
                 "Marta called about dinner plans.", "Marta and I talked about the weather.",
                 "Marta sent a photo of the beach."):
        await add_card(service, ANA.user_key, "Chat", text)
    dinosaurs = await add_card(service, ANA.user_key, "Museum", "The kids loved the dinosaur exhibit and the fossils.")
    await add_card(service, ANA.user_key, "Vet", "Tilly the cat had her vaccine.")
    await add_card(service, ANA.user_key, "Boiler", "The boiler was repaired on Monday.")
    embedded: list[list[str]] = []
    embed = service.embedder.embed

    async def spying(texts: list[str], *, is_query: bool) -> list[object]:
        embedded.append(list(texts))
        return await embed(texts, is_query=is_query)

    service.embedder.embed = spying  # type: ignore[method-assign,assignment]
    # Eight memories stand for a grown one here (by default a memory counts as at least 50 cards,
    # so a young one keeps its few names: see the pasted-page test, where "Mapfre" must stay).
    service.retriever.tuning = replace(service.retriever.tuning, common_name_floor=1)
    try:
        [shared] = await embed(["What do Marta's kids like?"], is_query=True)
        hits = await service.retriever.search(ANA.user_key, "What do Marta's kids like?", 10, query_vector=shared)
        assert embedded == [["What do kids like?"]]  # Marta is in 5 of 8 memories: she says nothing here
        assert {hit.card.id: hit.vector_rank for hit in hits}[dinosaurs] == 1
        embedded.clear()
        await service.retriever.search(ANA.user_key, "What did Tilly get at the vet?", 10, query_vector=shared)
        assert embedded == []  # a name in one memory of eight points at it: the turn's vector serves
        service.retriever.tuning = replace(service.retriever.tuning, common_name_share=0.0)
        whole = await service.retriever.search(ANA.user_key, "What do Marta's kids like?", 10, query_vector=shared)
        assert embedded == []
        assert {hit.card.id: hit.vector_rank for hit in whole}[dinosaurs] != 1
    finally:
        del service.embedder.embed  # type: ignore[method-assign]


async def test_a_question_that_names_days_finds_the_memories_of_those_days(service: MemoryService) -> None:
    from dataclasses import replace

    def on(day: int, month: int = 2) -> datetime:
        return datetime(2026, month, day, 20, 0, tzinfo=UTC)

    await add_card(service, ANA.user_key, "Dinner out", "Dinner at a Basque restaurant, great cheesecake.", on(14))
    await add_card(service, ANA.user_key, "Team dinner", "Dinner with the team at the Basque place.", on(10, 1))
    pintxos = await add_card(service, ANA.user_key, "Old town", "Txakoli and pintxos in the old town.", on(21))
    told_later = await add_card(service, ANA.user_key, "Weekend", "On Saturday we had squid in its ink.", on(24))
    await add_card(service, ANA.user_key, "Boiler", "The boiler was repaired.", on(21, 1))
    # Two candidates a ranker: the dinners fill both of the question's own.
    service.retriever.tuning = replace(service.retriever.tuning, candidates=2, seeds=0)
    for question, today in (("What did I have for dinner on 21 February 2026?", None),
                            ("¿Qué cené el 21 de febrero?", date(2026, 3, 2)),
                            ("What did I have for dinner last Saturday?", date(2026, 2, 23))):
        found = [hit.card.id for hit in await service.retriever.search(ANA.user_key, question, 5, today=today)]
        assert pintxos in found and told_later in found, question  # the day itself, and told three days later
    # Without a year or today's date, "21 February" names no day.
    found = [hit.card.id for hit in await service.retriever.search(ANA.user_key, "¿Qué cené el 21 de febrero?", 5)]
    assert pintxos not in found
    # Recall counts from the user's today (the clock says Monday 2 March): last week holds the 21st,
    # and "el sábado" is the 28th.
    assert pintxos in [hit.card.id for hit in await service.recall(ANA.user_key, "What did I eat last week?")]
    assert pintxos not in [hit.card.id for hit in await service.recall(ANA.user_key, "¿Qué cené el sábado?")]
    service.retriever.tuning = replace(service.retriever.tuning, period_weight=0.0)
    found = [hit.card.id for hit in await service.retriever.search(ANA.user_key, "¿Qué cené el 21 de febrero?", 5,
                                                                      today=date(2026, 3, 2))]
    assert pintxos not in found


async def test_a_memory_that_only_asks_ranks_below_one_that_tells(service: MemoryService) -> None:
    now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)

    async def add(synthesis: str) -> int:
        draft = CardDraft(day=now.date(), started_at=now, ended_at=now, title="Ana", synthesis=synthesis)
        [vector] = await service.embedder.embed([draft.body], is_query=False)
        async with service.db.transaction() as tx:
            return await service.cards.insert(tx, ANA.user_key, draft, vector, now)

    asks = await add("How was the pottery class on Saturday, did you enjoy the pottery?")
    tells = await add("Pottery class on Saturday: made two bowls and a mug.")
    question = "What did Ana do at the pottery class?"
    plain = Retriever(service.cards, service.embedder, replace(RetrievalTuning(), empty_cut=0.0))
    before = {hit.card.id: hit.score for hit in await plain.search(ANA.user_key, question, 10)}
    after = {hit.card.id: hit.score for hit in await service.retriever.search(ANA.user_key, question, 10)}
    assert after[asks] < before[asks]  # the question lost score
    assert after[tells] == before[tells]  # the memory that tells kept all of its own
    assert max(after, key=lambda card_id: after[card_id]) == tells


async def test_the_turns_vector_is_awaited_only_when_the_search_uses_it(service: MemoryService) -> None:
    for text in ("Marta and I walked the dog.", "Marta's kids came over.", "Marta lent me her drill.",
                 "Lunch with Marta.", "Marta's birthday cake.", "The boiler was repaired."):
        await add_card(service, ANA.user_key, "Day", text)
    service.retriever.tuning = replace(service.retriever.tuning, common_name_floor=1)
    embedded: list[list[str]] = []
    awaited: list[str] = []
    embed = service.embedder.embed
    [turns] = await embed(["What did Tilly get at the vet?"], is_query=True)

    async def spying(texts: list[str], *, is_query: bool) -> list[object]:
        embedded.append(list(texts))
        return await embed(texts, is_query=is_query)

    def shared(vector: object) -> Callable[[], Awaitable[object]]:
        async def made() -> object:
            awaited.append("router")
            return vector
        return made

    service.embedder.embed = spying  # type: ignore[method-assign,assignment]
    try:
        # A name common in the memory is left out: the search embeds its own words and never waits for the router.
        await service.retriever.search(ANA.user_key, "What did Marta lend me?", 10, query_vector=shared(turns))
        assert (awaited, embedded) == ([], [["What did lend me?"]])
        embedded.clear()
        await service.retriever.search(ANA.user_key, "What did Tilly get at the vet?", 10, query_vector=shared(turns))
        assert (awaited, embedded) == (["router"], [])  # the words as written: the router's vector serves
        awaited.clear()
        await service.retriever.search(ANA.user_key, "What did Tilly get at the vet?", 10, query_vector=shared(None))
        assert (awaited, embedded) == (["router"], [["What did Tilly get at the vet?"]])  # the router made none
    finally:
        del service.embedder.embed  # type: ignore[method-assign]
