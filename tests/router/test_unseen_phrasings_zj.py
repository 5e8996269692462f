"""Phrasings a sixteenth pair of blind sets found the router missing (br58 and br59, first runs on the code after
br56-57: recall 0.972 and 0.976), in other words: thanks and praise in Irish, Australian, Minnesotan, Mexican,
Colombian and Canarian wording, the assistant's tastes, an opinion asked "without looking anything up", a name
said without its possessive's apostrophe; and cues for hail, specs and manuals, a match result, when a public event
is on, "acordame", and an appointment moved to an hour (bot/core/routing/clauses.py, bot/core/texting.py,
tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import names_shown, needs_only_the_model, without_search_refused
from tests.router.turns import request


@pytest.mark.parametrize("text", [
    "dead on, thanks a million",
    "you betcha bud, appreciate it",
    "too easy mate, cheers",
    "no manches, qué chido eres",
    "jaja sos muy charro, me hiciste reír un montón ome",
    "ños chacho, eres lo más",
    "eso mismo, gracias mi niño",
    "ahh verdad, gracias",
    "nah leave it, I'll remember it",
    "mu bien, gracias",
])
async def test_thanks_and_praise_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text, previous=["memory"], recent=["what did I say about the van"],
                                                 answer="You said the van's MOT is due in March."), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", [
    "oye y cuál es tu comida favorita? la mía el sancocho",
    "what's your favourite bird, go on",
    "una pregunta tonta, sin buscar nada: ¿es mejor podar en luna menguante? dime lo que tú creas",
    "quick one and no googling anything, just your gut: diesel or electric for a farm quad?",
])
async def test_the_assistants_tastes_and_opinion_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert decision.skills == frozenset(), decision.reason


def test_a_refused_search_names_no_skill() -> None:
    assert "internet" not in without_search_refused("no me busques nada en internet, decime qué pensás")
    assert needs_only_the_model("no need to look anything up, just tell me what you think of the plan")


def test_a_name_shown_can_lose_its_apostrophe() -> None:
    answer = "3 unread:\n1. Siobhan Kelly – invoice\n2. Council – bins"
    assert names_shown("open siobhans", answer)
    assert not names_shown("open councils", "3 unread:\n1. Tom – hi")


@pytest.mark.parametrize(("text", "skill", "previous", "answer"), [
    ("va a granizar el finde en la vega? y apúntame cubrir los tomates", "environment", (), ""),
    ("find me the specs for the husqvarna 550 xp and remind me to order chain oil", "web", (), ""),
    ("can you dig out the owner's manual for the rayburn 400 and tell me how to bleed it", "web", (), ""),
    ("oye y cómo quedó el atlético anoche? y qué tengo mañana", "web", (), ""),
    ("when's the Royal Welsh on this year? put it in the calendar", "web", (), ""),
    ("acordame el lunes pagar el arriendo y mirá si llegó correo del banco", "tasks", (), ""),
    ("grand, push my Letterkenny pickup to 4 then", "agenda", ("environment",),
     "Tomorrow in Derry: heavy rain from midday, clearing by 4."),
    ("any jobs booked the morra", "agenda", (), ""),
])
async def test_cues_found_in_sets_58_and_59(make_router, available, text: str, skill: str, previous: tuple[str, ...],
                                            answer: str) -> None:
    decision = await make_router().route(
        request(text, previous=previous, recent=["weather tomorrow?"] if answer else [], answer=answer), available)
    assert skill in decision.skills, decision.reason
