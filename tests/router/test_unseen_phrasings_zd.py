"""Phrasings a tenth pair of blind sets found the router missing (br46 and br47, first runs on 6d74514: recall 0.985
and 0.962), in other words: thanks said "gracias loco", "ta, sorted", "sos lo máximo", Yorkshire's "now then!"; what
the assistant would do, asked last; a sum of the user's own figures; and cues for people by their habits, the
weather forecast named as such, time blocked out, a place still shut, the next public event
(bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_greeting, is_small_talk, needs_only_the_model
from tests.router.turns import request


@pytest.mark.parametrize("text", ["vale, gracias loco", "cheers, sorted", "eres lo máximo, gracias", "wao, genial"])
def test_more_thanks_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


def test_now_then_greets() -> None:
    assert is_greeting("now then! morning")


@pytest.mark.parametrize("text", ["no sé si cambiar de curro o aguantar un año más, tú qué harías?",
                                  "the landlord wants a new contract or we go, what would you do?",
                                  "what's 36 boxes at £7.50 each"])
def test_what_the_assistant_would_do_and_a_sum_need_only_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize(("text", "skill"), [
    ("remember mrs o'neill at number 4 always wants the brown loaf", "memory"),
    ("mándale a mi cuñado la previsión del tiempo para el finde", "environment"),
    ("recuérdame a las 5 lo del banco y bloquéame de 6 a 8", "agenda"),
    ("is the swimming baths still shut for repairs?", "web"),
    ("cuándo es el próximo partido en el Bernabéu? apúntamelo", "web"),
])
async def test_cues_found_in_sets_46_and_47(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
