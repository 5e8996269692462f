"""Phrasings a ninth pair of blind sets found the router missing (br44 and br45, first runs on 37750e4: recall 0.958
and 0.957), in other words: Scots "mind me" and "whit've a got on…", a question to the assistant about itself,
company asked for, a pun asked for, how to explain a thing to someone, who asked said after the question, and cues
for the weather by how it will feel, somewhere still open, the sun at its strongest, a booking site, wait times,
departures of "any bus", people by what they always want, sending someone named a thing, what is booked, and what
the user logged or harvested (bot/core/routing/clauses.py, bot/core/routing/router.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import asks_for_comfort, needs_only_the_model, only_chats, says_who_asked
from tests.router.turns import request


@pytest.mark.parametrize("text", ["haha you ever been cold? like properly cold", "oye, ¿tú duermes alguna vez?"])
def test_a_question_to_the_assistant_about_itself(text: str) -> None:
    assert only_chats(text)


def test_a_question_about_a_skill_is_not_about_the_assistant() -> None:
    assert not only_chats("have you got my calendar for tomorrow")


@pytest.mark.parametrize("text", ["cuéntame algo, que estoy aburrido en el almacén", "entertain me, I'm bored stiff"])
def test_asking_for_company_asks_for_comfort(text: str) -> None:
    assert asks_for_comfort(text)


@pytest.mark.parametrize("text", ["give me a fishing pun, keep it clean", "cómo le explico a mi suegra qué es un NFT?",
                                  "how do I explain to a tourist what a ceilidh is?"])
def test_more_asks_for_the_model_alone(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize("text", ["que me lo ha preguntado mi sobrino", "got a tourist asking"])
def test_who_asked_said_after_the_question(text: str) -> None:
    assert says_who_asked(text)


async def test_a_general_question_and_who_asked_it_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(
        request("cuántos años tiene la catedral de Burgos? que me lo ha preguntado un turista"), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("mind me at 7 tae phone the garage", "tasks"),
    ("n whit've a got on friday?", "tasks"),
    ("is it gonna be baltic at the match?", "environment"),
    ("anywhere still open for chips round here?", "environment"),
    ("a q hora pega más fuerte el sol el sábado?", "environment"),
    ("has anything come in from the reservation system?", "inbox"),
    ("cuánto tiempo de espera hay en el paso de Irún?", "web"),
    ("a q hora sale algún tren pa Sevilla desde Cádiz?", "web"),
    ("remember the Garcias always want the corner table", "memory"),
    ("send the Murphys the quote for the roof", "email"),
    ("how many fittings have I got booked next week", "agenda"),
    ("did I log when the boiler was serviced?", "timeline"),
    ("cuánto sacamos de la parcela del río el año pasado?", "timeline"),
])
async def test_cues_found_in_sets_44_and_45(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
