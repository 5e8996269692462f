"""Phrasings a fourteenth pair of blind sets found the router missing (br54 and br55, first runs on cb6d5cc: recall
0.976 and 0.985), in other words: "de diez", figures multiplied out for the model, a longer answer to "when?";
and cues for web-form sign-ups, whether the boat sails, what the user made this week, an event moved to an hour
(bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_small_talk, needs_only_the_model
from tests.router.turns import request


def test_de_diez_is_small_talk() -> None:
    assert is_small_talk("dale, de diez, gracias")


def test_figures_multiplied_out_need_only_the_model() -> None:
    assert needs_only_the_model("cuánto es 12 palets x 40 cajas x 3 euros? no me sale")


async def test_a_longer_answer_to_when_keeps_the_reminder(make_router, available) -> None:
    decision = await make_router().route(
        request("once I'm off shift tmrw so around half 6", previous=["tasks"], recent=["remind me to call the vet"],
                answer="When do you want the reminder?"), available)
    assert "tasks" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("pásame las inscripciones del formulario web y contéstale a la de ayer", "inbox"),
    ("jeez. is the ferry still running tonight", "web"),
    ("mándale a mi socio lo que hemos sacado este mes, que lo tienes apuntado", "timeline"),
    ("la reunión con el proveedor pásala a las 12 que llego tarde", "agenda"),
])
async def test_cues_found_in_sets_54_and_55(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
