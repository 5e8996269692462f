"""Phrasings an eighth pair of blind sets found the router missing (br42 and br43, first runs on the sets 40-41
fixes: recall 0.986 and 0.995), in other words: thanks said as "preciate it" or to a "máquina", a shrug at expected
news, "hágale"; an opinion asked "tú qué crees, …"; the purpose of a text to write with a word on how it should be;
and cues for heavy rain as Ireland says it, prices being paid said "se ta pagando", what the user logged bit by bit
and an outing put on a day at an hour (bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_small_talk, needs_only_the_model
from tests.router.turns import request


@pytest.mark.parametrize("text", ["appreciate it mate", "gracias máquina", "ah sure what else is new 🙄",
                                  "uy bien, hágale pues"])
def test_more_thanks_and_shrugs_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


def test_an_opinion_asked_you_first_needs_only_the_model() -> None:
    assert needs_only_the_model("tú qué crees, ¿me cambio de piso o aguanto hasta verano?")


async def test_a_text_to_write_for_a_purpose_with_how_it_should_be_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("dame 3 ideas de títulos pa la charla del jueves, cortitos"),
                                         available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("will it be bucketing down for the match?", "environment"),
    ("a cuánto se ta pagando la almendra esta campaña?", "web"),
    ("las horas que te fui apuntando este mes, mándaselas a Marta por correo", "timeline"),
    ("ponme cena con los suegros el viernes a las 9", "agenda"),
])
async def test_cues_found_in_sets_42_and_43(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
