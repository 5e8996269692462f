"""Phrasings two blind sets found the router missing (br28 and br29, first runs on d2a53db: recall 0.919 and
0.962), in other words: greetings and vocatives spelled as said ("güenas", "alreet", "pet"), a longer fragment
opened by "and" or "y", kind words asked for on a bad day, which wording is right, today's date, a figure
converted when it comes first, national feasts counted to, and cues for prices, sensors, "pop it in for 9",
"ponme aviso" and what someone sent (bot/core/texting.py, bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import (
    asks_for_comfort,
    counts_days_to_given_dates,
    is_elliptical,
    is_greeting,
    is_small_talk,
    needs_only_the_model,
)
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", ["güenas tardeh", "quiubo, buenos días", "areet, morning"])
def test_greetings_spelled_as_said(text: str) -> None:
    assert is_greeting(spelled_out(text))


@pytest.mark.parametrize("text", ["thanks pet x", "gracias asere", "y tú q tal, miarma?", "qué onda", "hm ok"])
def test_thanks_and_asking_after_said_with_a_vocative(text: str) -> None:
    assert is_small_talk(spelled_out(text))


async def test_night_night_after_thanks_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("ta hinny, nighty night"), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["and the one after the school trip?", "y la semana de las fiestas del pueblo?",
                                  "and a cashpoint near there", "and so does her brother"])
def test_a_longer_fragment_opened_by_and(text: str) -> None:
    assert is_elliptical(text)


@pytest.mark.parametrize("text", ["and the boiler man is coming at 3 so I need to be home by 2",
                                  "and this year I want to start running again properly"])
def test_and_opening_a_statement_of_its_own_is_no_fragment(text: str) -> None:
    assert not is_elliptical(text)


async def test_a_fragment_keeps_the_last_turns_skill(make_router, available) -> None:
    decision = await make_router().route(
        request("hmm. and the month we moved house?", ["diary"], ["what did the diary say about March?"],
                "In March you wrote mostly about work and a weekend in the hills."), available)
    assert "diary" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["anímame un poco, me han suspendido el teórico", "cheer me up, lost the match 4-0",
                                  "dime algo que me alegre, hoy se murió mi perro"])
def test_asking_for_kind_words_is_comfort(text: str) -> None:
    assert asks_for_comfort(text)


async def test_comfort_after_bad_news_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("say something nice please, today we lost the contract"), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["se escribe 'haber' o 'a ver' aquí?", "which is correct, 'fewer' or 'less'?",
                                  "what's today's date, I always forget", "30 millas cuánto es en kilómetros?",
                                  "98.6 what is that in celsius"])
def test_wording_date_and_figure_first_conversions_are_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize("text", ["cuántos días faltan para el día de muertos?", "how many weeks till thanksgiving"])
def test_days_to_a_national_feast_are_counted_by_the_clock(text: str) -> None:
    assert counts_days_to_given_dates(text)


@pytest.mark.parametrize(("text", "skill"), [
    ("a cómo está el quintal de café en la bolsa hoy?", "web"),
    ("how much are 20kg bags of plaster at B&Q right now", "web"),
    ("did the soil sensors in the greenhouse report anything overnight?", "inbox"),
    ("got a boiler service at the Patels', pop it in for thursday 10am", "agenda"),
    ("ponme una alarma para sacar el pan del horno", "tasks"),
    ("qué me han mandado los del banco?", "email"),
    ("check if the landlord emailed about the deposit", "email"),
    ("mañana va a pegar fuerte el sol en la playa?", "environment"),
    ("how far apart are the two flats we're viewing", "environment"),
    ("push the call with the supplier from Valencia to friday", "agenda"),
])
async def test_cues_found_in_sets_28_and_29(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


def test_northern_and_spoken_words_are_spelled_out() -> None:
    assert spelled_out("got owt on tomoz? güeno") == "got anything on tomorrow? bueno"
