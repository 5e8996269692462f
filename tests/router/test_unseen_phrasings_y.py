"""Phrasings a fifth pair of blind sets found the router missing (br36 and br37, first runs on 4975976: recall 0.967
and 0.952), in other words: where a word or saying comes from, a question passed on from someone else, how to say a
quoted line in any language, "X vs Y" explained, only an opinion wanted, a follow-up to a conversion, "… too" after
an add, and cues for wind, the to-do list spaced, what someone wrote, prices being paid, records, an outing added
with its time and what the user logged (bot/core/routing/clauses.py, bot/core/routing/router.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_greeting, needs_only_the_model, refers_back
from tests.router.turns import request


@pytest.mark.parametrize("text", ["de dónde viene la palabra 'chocolate'?",
                                  "where does the phrase 'cold feet' come from",
                                  "is 'by and large' originally a sailing term?",
                                  "my daughter asks where the word 'ketchup' comes from",
                                  "mi abuela me pregunta de dónde viene el dicho 'a buenas horas'",
                                  "how would you say 'see you at the fair' in Basque?",
                                  "explain LED vs halogen for a kitchen, simply",
                                  "¿mejor aceite de oliva o de girasol pa freír? solo tu opinión",
                                  "cuántos pies son 40 metros?"])
def test_more_questions_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


async def test_a_follow_up_to_a_conversion_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(
        request("and in ounces?", (), ["how many grams is 3 pounds?"], "3 pounds is about 1,361 g."), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["throw in bin bags too", "y pilas también", "add oat milk as well"])
def test_more_of_the_same_request_refers_back(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["me too", "too hot for a run today"])
def test_too_that_is_no_more_of_the_same(text: str) -> None:
    assert not refers_back(text)


def test_aupa_greets() -> None:
    assert is_greeting("aupa, egun on!")


@pytest.mark.parametrize(("text", "skill"), [
    ("is it gonna be blowing a gale on the front later", "environment"),
    ("rachas de viento esta noche en Tarifa?", "environment"),
    ("va a hacer muchísimo calor el sábado?", "environment"),
    ("stick 'ring the farrier' on my to do", "tasks"),
    ("mira si el de la imprenta me escribió ayer", "email"),
    ("a cuánto andan pagando la almendra marcona?", "web"),
    ("cuál es el récord del Tour en el Tourmalet?", "web"),
    ("if it's dry add a bbq with the neighbours 6pm saturday", "agenda"),
    ("compara con los kilómetros q registré en marzo", "timeline"),
])
async def test_cues_found_in_sets_36_and_37(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
