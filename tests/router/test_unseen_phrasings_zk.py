"""Phrasings a seventeenth pair of blind sets found the router missing (br60 and br61, first runs on the code after
br58-59: recall 0.985 and 0.971), in other words: what the assistant is and whose side it is on, its view asked in
passing, a question for the model after a preface, "no need to do anything", glad of the talk, a rescue thanked for;
an item named by a code; and cues for what the user did today, a day's overview by weekday, a team's signings,
remembering for the future, sending to a family by name (bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import names_shown, needs_only_the_model, only_chats
from tests.router.turns import request


@pytest.mark.parametrize("text", [
    "mi hijo quiere saber si tú eres persona o robot, qué le digo? jaja",
    "pregunta seria eh: vos sos de boca o de river? no me falles",
    "qué gusto da charlar contigo, en la finca no hay con quien hablar desde que se fue mi hermano",
    "chamo gracias por lo del martes, me salvaste la vida con lo de la reserva 🙏",
    "no sé qué haría sin ti tía, eres una crack",
    "bueno gracias, sos bien atento vos",
    "just wanted to say the grandkids think you're brilliant. no need to do anything, that's all",
])
async def test_what_the_assistant_is_and_thanks_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", [
    "oye una cosa que me tiene intrigado, tú sabes lo que es un alambique? mi nieto dice que no",
    "una consulta rápida, no es para que hagas nada: por qué le dicen cabeza de turco a alguien?",
    "te cuento: el guía dice que las ballenas duermen con medio cerebro. tú qué crees, será verdad?",
    "be honest, brown sauce or red on a bacon butty? no wrong answers",
])
def test_a_question_for_the_model_after_a_preface_or_with_its_view_asked(text: str) -> None:
    assert needs_only_the_model(text) or only_chats(text)


def test_a_request_after_a_question_for_the_model_still_routes() -> None:
    assert not only_chats("una cosa, qué es el IBI? y apúntame cita con el gestor")


def test_an_item_named_by_its_code() -> None:
    answer = "3 unread:\n1. Roads – «A-66 closed at Cáceres»\n2. Weather – «Storm warning»"
    assert names_shown("open the a-66 one", answer)
    assert not names_shown("open the a-7 one", answer)


@pytest.mark.parametrize(("text", "skill"), [
    ("anotá que hoy despaché 40 cajas y fijate si entró algún pedido de la tienda en línea", "timeline"),
    ("log the boat's oil change today, 600 hours on the engine", "timeline"),
    ("qué tengo el martes? y cómo va a estar el tiempo ese día", "tasks"),
    ("did the Saints sign anyone before the deadline?", "web"),
    ("remind me at 6 to call Mick, and remember for next time he only picks up after dinner", "memory"),
    ("what's the forecast for Bala on sunday, send it to the Hugheses so they can plan the walk", "email"),
    ("if it's blowing over 30 knots move my lift on B-7 to thursday", "agenda"),
    ("y qué día exactamente fue que ganamos la final? mira el registro", "timeline"),
])
async def test_cues_found_in_sets_60_and_61(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
