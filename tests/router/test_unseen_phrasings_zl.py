"""Phrasings an eighteenth pair of blind sets found the router missing (br62 and br63, first runs on 15360ae: recall
0.971 and 0.981), in other words: a rhyme or a saying asked of the model, its view ("what's your take"), whether it
ever sleeps, thanks to a mate ("cheers marra", "gracias primo"), praise with a comparison; a fragment that moves the
last request to another place, and what the thing just shown says about something; and cues for a count the user
did today or in a month, "put it in" after an event's day, official guidance, opening on weekdays, "wx"
(bot/core/routing/clauses.py, bot/core/texting.py, tools/skills/*.py, router_data/cues.jsonl).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import asks_what_it_says, is_elliptical, needs_only_the_model
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", [
    "dame una rima con 'Sevilla' que no sea orilla",
    "how d'ye say good luck in welsh?",
    "what's your take, is it daft to name a tractor?",
])
def test_rhymes_sayings_and_its_view_need_only_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize("text", [
    "aye that's about right, cheers marra",
    "gracias primo, de una",
    "ndeee gracias che",
    "eres más apañao que un bolsillo en una camisa, gracias",
    "y vos nunca descansás? jaja",
    "d'you ever think about the lads who laid these roads? no names anywhere. anyway, bit deep tonight",
])
async def test_thanks_and_questions_to_the_assistant_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text, previous=["environment"], recent=["weather tomorrow?"],
                                                 answer="Tomorrow: showers until 11, then dry, 14°."), available)
    assert decision.skills == frozenset(), decision.reason


def test_another_place_for_the_same_request_is_a_fragment() -> None:
    assert is_elliptical("y en el mercado de Triana aquí?")
    assert not is_elliptical("y en el mercado compré 3 kilos de tomate")


def test_what_the_thing_shown_says() -> None:
    assert asks_what_it_says("y qué dice del mantenimiento? cada cuánto toca")
    assert not asks_what_it_says("qué dices tú del mantenimiento")


async def test_what_the_page_shown_says_keeps_the_web(make_router, available) -> None:
    decision = await make_router().route(
        request("qué pone sobre la garantía? cuántos años da", previous=["web"],
                recent=["busca en internet el manual de la caldera Vaillant"],
                answer="Encontré el manual en la web de Vaillant: instalación, mantenimiento y garantía."), available)
    assert "web" in decision.skills, decision.reason


def test_wx_is_the_weather() -> None:
    assert spelled_out("wx for monday?") == "weather for monday?"


@pytest.mark.parametrize(("text", "skill"), [
    ("sheared 240 at the Robsons this morning, knackered", "timeline"),
    ("cuántos partidos pité en noviembre? y qué tengo el sábado", "timeline"),
    ("how many did we pick last week at the top field?", "timeline"),
    ("the quiz night is friday 8pm, stick it in and remind me to bring a pen", "agenda"),
    ("find the HSE guidance on working at height and save it to my notes", "web"),
    ("is the farm shop at Kielder open sundays?", "web"),
    ("qué horario tiene la biblioteca municipal en agosto?", "web"),
    ("whats the wx looking like for tuesday at the strip", "environment"),
])
async def test_cues_found_in_sets_62_and_63(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("lovely chatting to you, now remind me at 5 to ring the farrier", "tasks"),
    ("qué gusto hablar contigo, apúntame el dentista el lunes a las 10", "agenda"),
    ("nothing to ask really, but add fence staples to the shopping list", "tasks"),
])
async def test_a_request_beside_chat_or_beside_asking_nothing_still_routes(make_router, available, text: str,
                                                                           skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
