"""Phrasings a seventh pair of blind sets found the router missing (br40 and br41, first runs on the sets 38-39
fixes: recall 0.971 and 0.981), in other words: thanks and remarks in Chilean, Costa Rican, Yorkshire and Bristol
words; off to bed with the reason why; "others" pointing back; an add that names no place, after a note was shown; a
conversion typed "whats"; and cues for what is on one's plate, the heat, "me avisas", what the user jotted down,
staying dry, the log, and what the user passed on before (bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import (
    adds_with_no_place,
    asks_for_comfort,
    is_small_talk,
    needs_only_the_model,
    only_chats,
    refers_back,
)
from tests.router.turns import request


@pytest.mark.parametrize("text", ["sweet, ta", "bacán po", "tuanis mae", "stoked, cheers", "reet then",
                                  "lovely day innit"])
def test_more_thanks_and_remarks_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["me voy a dormir que mañana madrugo", "night all, off to bed cos early shift"])
def test_off_to_bed_with_the_reason_is_small_talk(text: str) -> None:
    assert only_chats(text)


@pytest.mark.parametrize("text", ["me voy a dormir, recuérdame a las 6", "off to bed, add milk to the list"])
def test_a_request_beside_going_to_bed_is_still_one(text: str) -> None:
    assert not only_chats(text)


async def test_off_to_bed_with_a_shift_named_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("buenas noches, me voy a la cama q mañana entro a las 7"), available)
    assert decision.skills == frozenset(), decision.reason


def test_asking_for_words_to_cheer_up_asks_for_comfort() -> None:
    assert asks_for_comfort("dime algo para animarme porfa, hoy no vendí nada")


def test_a_conversion_typed_without_its_apostrophe_needs_only_the_model() -> None:
    assert needs_only_the_model("whats 20 celsius in fahrenheit, my cousin asks")


def test_others_points_back() -> None:
    assert refers_back("any others since monday?")


async def test_an_add_with_no_place_after_a_note_adds_to_that_note(make_router, available) -> None:
    answer = "«Gigs»:\n- The Ritz – Fri 8th, 9pm\n- Casa Loma – Sun 10th, 7pm"
    decision = await make_router().route(request("add Blue Nile, sat the 16th, 8 to 11", ["notes"],
                                                 ["open my gigs note"], answer), available)
    assert "notes" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["add eggs to the shopping list", "añade pan a la lista de la compra"])
def test_an_add_that_names_its_place_is_not_placeless(text: str) -> None:
    assert not adds_with_no_place(text)


@pytest.mark.parametrize(("text", "skill"), [
    ("what's on me plate today, jobs n all", "tasks"),
    ("va a apretar el calor el sábado?", "environment"),
    ("lee el correo de la cooperativa y me avisas la víspera", "tasks"),
    ("send ray the changes i jotted down last night", "notes"),
    ("is it stopping dry tomorrow up the top field", "environment"),
    ("check the log for when i last limed the bottom field", "timeline"),
    ("cómo se llamaba el fontanero de la otra vez?", "memory"),
    ("pásame el número del herrero que te di en verano", "memory"),
])
async def test_cues_found_in_sets_40_and_41(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
