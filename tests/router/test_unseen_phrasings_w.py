"""Phrasings a third pair of blind sets found the router missing (br32 and br33, first runs on the br30-31 fixes:
recall 0.986 and 0.958), in other words: the best way to do a thing, whether a saying is a myth, how many of one
unit make another, a longer "what does … mean", what comes after a question for the model, Chile's "wena", an item
called "the X one", and cues for distances in km, shifts, queues, prices charged or fetched before, controllers
and things logged (bot/core/routing/clauses.py, bot/core/routing/router.py, bot/core/texting.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import (
    after_the_question,
    is_greeting,
    is_small_talk,
    needs_only_the_model,
    picks_a_listed_item,
)
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", ["what's the best way to get red wine out of a rug?",
                                  "cuál es la mejor forma de guardar el queso curado?",
                                  "is it true you lose most heat through your head or is that a myth",
                                  "cuántas onzas son una libra?", "how many teaspoons in a tablespoon",
                                  "what does 'cash on delivery only' actually mean", "12 stone cuántos kilos son?"])
def test_more_questions_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize("text", ["what's the best way to get to the airport from here?",
                                  "cuál es la mejor forma de llegar a Triana?"])
def test_the_best_way_somewhere_is_a_route(text: str) -> None:
    assert not needs_only_the_model(text)


def test_what_comes_after_the_question_is_what_may_name_a_skill() -> None:
    assert after_the_question("30 C cuántos grados son? el termostato viene así") == " el termostato viene así"
    assert after_the_question("what does 'FOB' mean?") == ""
    assert after_the_question("how do you say 'invoice' in French") == "how do you say 'invoice' in French"


async def test_a_conversion_with_an_aside_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("20 celsius cuántos grados son en fahrenheit? el horno nuevo viene "
                                                 "así y no me aclaro"), available)
    assert decision.skills == frozenset(), decision.reason


def test_wena_greets_and_legend_thanks() -> None:
    assert is_greeting(spelled_out("wenas, buenos días"))
    assert is_small_talk("legend, ta")
    assert is_small_talk("braw, cheers pal")


def test_an_item_called_by_a_word_and_one() -> None:
    answer = "3 new posts:\n1. Serious Eats - braised leeks\n2. Bon Appétit - rhubarb tart\n3. Eater - new pizzeria"
    assert picks_a_listed_item("put the rhubarb one into my recipes note", answer)
    assert not picks_a_listed_item("put the other one into my recipes note", answer)
    assert not picks_a_listed_item("put the lemon one into my recipes note", answer)


@pytest.mark.parametrize(("text", "skill"), [
    ("anotámelo y decime a cuántas cuadras queda de acá", "environment"),
    ("am I on nights next week?", "agenda"),
    ("what've I got on today", "tasks"),
    ("how long is the queue at the post office right now", "web"),
    ("cuánto cobra una mudanza de Madrid a Cádiz más o menos?", "web"),
    ("y el año pasado a cuánto estaba el litro?", "web"),
    ("did the boiler thermostat send anything overnight?", "inbox"),
    ("cuántos km tengo registrados este mes?", "timeline"),
])
async def test_cues_found_in_sets_32_and_33(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
