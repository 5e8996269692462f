"""Phrasings a fourth pair of blind sets found the router missing (br34 and br35, first runs on the br32-33 fixes:
recall 0.962 and 0.958), in other words: opinions asked with "tú qué dices", capitals, founding years and the
difference between two notions, a follow-up to a question the model answered alone, "y la de…" after a list,
Costa Rica's "pura vida", Galician beside Spanish, and cues for diversions, the British diary as a calendar, what's
on at a place, a feed reader, something that happened put down, and a number the assistant was told
(bot/core/routing/clauses.py, bot/core/routing/router.py, bot/core/texting.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import continues_on_a_thing_said, is_greeting, is_small_talk, needs_only_the_model
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", ["tú qué dices, ¿la pinto azul o verde?", "what's the capital of Bhutan?",
                                  "en qué año se construyó el acueducto de Segovia?",
                                  "what year was the Forth Bridge built", "qué diferencia hay entre IVA e IRPF?",
                                  "what's the difference between baking soda and baking powder"])
def test_opinions_and_what_everyone_can_know_are_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


async def test_a_follow_up_to_a_question_the_model_answered_keeps_nothing(make_router, available) -> None:
    decision = await make_router().route(
        request("y mástil?", (), ["cómo se dice 'vela' en inglés?"], "Se dice «sail»."), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["y la del martes a qué hora era?", "y el de Correos qué decía?"])
def test_and_a_thing_by_its_article_continues(text: str) -> None:
    assert continues_on_a_thing_said(text)


def test_and_a_thing_of_its_own_does_not_continue() -> None:
    assert not continues_on_a_thing_said("y la semana que viene quiero ir al médico")


async def test_and_the_one_of_last_week_keeps_the_inbox(make_router, available) -> None:
    answer = "2 nuevas:\n- Caldera: «Presión baja» (03:12)\n- Caldera: «Presión normal» (03:40)"
    decision = await make_router().route(
        request("y la de la semana pasada de la caldera a qué hora fue exactamente?", ["inbox"], ["notificaciones?"],
                answer), available)
    assert "inbox" in decision.skills, decision.reason


def test_pura_vida_and_galician() -> None:
    assert is_small_talk("pura vida mae, gracias")
    assert is_greeting("bos días!")
    assert spelled_out("q teño hoxe?") == "que tengo hoy?"


@pytest.mark.parametrize(("text", "skill"), [
    ("is the 7 bus still on diversion through the high street?", "web"),
    ("pop the parents' evening in the diary for thursday", "agenda"),
    ("what's on at the leisure centre tonight", "agenda"),
    ("anything new in my reader from the Guardian?", "news"),
    ("apunta que ayer se fue la luz dos horas en el taller", "timeline"),
    ("qué teléfono tenías de Julián, el fontanero?", "memory"),
    ("just done a 12 hour shift, log it", "timeline"),
])
async def test_cues_found_in_sets_34_and_35(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
