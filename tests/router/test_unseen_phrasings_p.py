"""Phrasings a blind set of dictated, terse and mixed-language messages found the router missing: a lone
word that small talk only builds phrases from ("todo?"), venting about the day, well-wishes on leaving
and Portuguese thanks, terse lists of what to show ("weather & news"), follow-ups that name an item of
the last answer by its sender ("open Marta's"), and the cue families for a bare "tiempo", habitual
forgetting, waiting to hear from someone and Portuguese reminders (bot/core/routing/clauses.py,
router.py, router_data/)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.core.events import ChatRef, Platform
from bot.core.routing import RouteRequest
from bot.core.routing.clauses import is_greeting, is_small_talk, list_items, refers_back, split_clauses

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


def request(text: str, previous: Sequence[str] = ()) -> RouteRequest:
    return RouteRequest(CHAT, text, (), frozenset(previous))


@pytest.mark.parametrize("text", ["todo?", "so much", "eso"])
def test_words_small_talk_only_builds_phrases_from_are_not_small_talk_alone(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize("text", ["eso es todo", "thank you so much", "todo bien", "de acuerdo", "that's all"])
def test_the_phrases_built_from_them_still_are(text: str) -> None:
    assert is_small_talk(text)


async def test_a_lone_todo_asks_for_the_to_do_list(make_router, available) -> None:
    decision = await make_router().route(request("todo?"), available)
    assert "tasks" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["what a week", "menuda semana llevo", "vaya día llevo, madre mía",
                                  "ugh, rough day", "qué día más largo"])
def test_venting_about_the_day_is_small_talk(text: str) -> None:
    assert is_small_talk(text) and not refers_back(text)


async def test_venting_about_the_day_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("uf, qué semana llevo"), available)
    assert not decision.skills, decision.reason


def test_which_day_is_still_a_question_about_the_last_answer() -> None:
    assert not is_small_talk("qué día?") and refers_back("qué día?")


@pytest.mark.parametrize("text", ["have a nice weekend!", "que tengas una buena tarde", "valeu, tchau",
                                  "muito obrigada", "até mais"])
def test_well_wishes_on_leaving_and_portuguese_thanks_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["bom dia!", "boa tarde", "buen día"])
def test_portuguese_and_latin_american_greetings_of_the_day_are_greetings(text: str) -> None:
    assert is_greeting(text)


async def test_a_farewell_wishing_a_good_evening_asks_for_no_forecast(make_router, available) -> None:
    decision = await make_router().route(request("enjoy your evening"), available)
    assert not decision.skills, decision.reason


@pytest.mark.parametrize(("text", "items"), [
    ("forecast & feeds", ("forecast", "feeds")), ("correo + alertas", ("correo", "alertas")),
    ("mail, calendar and reminders", ("mail", "calendar", "reminders")),
])
def test_a_terse_list_has_an_item_per_thing_asked_for(text: str, items: tuple[str, ...]) -> None:
    assert list_items(text) == items


@pytest.mark.parametrize("text", ["remind me to call the plumber and the electrician", "qué tiempo hace?"])
def test_a_sentence_is_not_a_terse_list(text: str) -> None:
    assert list_items(text) == ()


def test_a_list_of_groceries_still_stays_one_request() -> None:
    assert split_clauses("eggs and flour") == ("eggs flour",)


async def test_each_item_of_a_terse_list_gets_its_skill(make_router, available) -> None:
    decision = await make_router().route(request("the forecast, then news"), available)
    assert {"environment", "news"} <= decision.skills, decision.reason


async def test_a_list_of_names_adds_no_skill_to_the_whole_message(make_router, available) -> None:
    router = make_router()
    decision = await router.route(request("Luis and Marta"), available)
    assert decision.skills == router.choose(router.scores("Luis and Marta", available))[0], decision.reason


@pytest.mark.parametrize("text", ["read Marta's", "and open Luis's", "what did Luis want?", "qué dice Correos",
                                  "y qué quiere el de la gestoría"])
def test_an_item_of_the_last_answer_named_by_its_sender_refers_back(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["what does the forecast say", "what did you say", "qué dice el tiempo",
                                  "open the calendar", "what's up"])
def test_a_named_object_or_the_assistant_is_not_an_item_of_the_last_answer(text: str) -> None:
    assert not refers_back(text)


async def test_a_follow_up_naming_the_sender_keeps_the_mail(make_router, available) -> None:
    decision = await make_router().route(request("what did Luis want?", previous=["email"]), available)
    assert "email" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("tiempo el sábado?", "environment"),
    ("el tiempo en Teruel", "environment"),
    ("q tal tiempo hará en Vigo", "environment"),
    ("I always forget to defrost the freezer", "tasks"),
    ("I can never remember to charge the car", "tasks"),
    ("nunca me acuerdo de regar los geranios", "tasks"),
    ("se me pasa siempre renovar el seguro", "tasks"),
    ("still haven't heard back from the agency", "email"),
    ("sigo sin respuesta del seguro", "email"),
    ("lembra-me de pagar o seguro", "tasks"),
    ("não me deixes esquecer o dentista", "tasks"),
])
def test_the_new_cue_families_name_their_skill(make_router, available, text: str, skill: str) -> None:
    assert skill in make_router().named(text, available)


@pytest.mark.parametrize(("text", "skill"), [
    ("tiempo libre", "environment"),
    ("tiempo de cocción del arroz", "environment"),
    ("nunca me acuerdo de su apellido", "tasks"),
])
def test_time_and_remembering_a_fact_are_not_those_cues(make_router, available, text: str, skill: str) -> None:
    assert skill not in make_router().named(text, available)


@pytest.mark.parametrize(("text", "skill"), [
    ("tiempo", "environment"),
    ("siempre se me olvida tomar la pastilla", "tasks"),
    ("I keep forgetting to text my brother back", "tasks"),
])
async def test_a_request_in_those_words_gets_its_skill(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
