"""Phrasings two blind sets found the router missing (br22 and br23, first runs on 216e74a: recall 0.995 and
0.948), in other words: frost and "el tiempo que va a hacer" as forecasts, patients or clients on a day and
"pencil it in for thu" as the calendar, how to say a thing in another language and what it is for, greetings
said fondly, and thanks in Spain's other languages (bot/core/routing/clauses.py, bot/core/routing/router.py,
bot/core/routing/router_data/cues.jsonl).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_greeting, is_small_talk, needs_only_the_model, without_purpose
from tests.router.turns import request


@pytest.mark.parametrize(("text", "skill"), [
    ("if it's going to freeze overnight, remind me at 10 to cover the car", "environment"),
    ("mándale a mi hermano por correo el tiempo que va a hacer el domingo", "environment"),
    ("mira si hay huelga de metro el lunes y dime si tengo clientes ese día", "agenda"),
    ("who's the supplier I said I'd meet? pencil it in for thu at 3", "agenda"),
])
async def test_cues_found_in_sets_22_and_23(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["can you freeze cooked pasta?", "how do I freeze bread so it stays soft?"])
async def test_freezing_food_is_no_forecast(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert "environment" not in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["cómo le digo a mi casero en inglés 'la caldera no funciona'",
                                  "how would I say 'my back hurts' in Spanish?"])
def test_how_to_say_a_thing_in_another_language_is_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


def test_what_a_translation_is_for_names_no_skill() -> None:
    assert without_purpose("cómo se dice 'factura proforma' en inglés? para un email") == (
        "cómo se dice 'factura proforma' en inglés")


async def test_a_translation_for_an_email_routes_to_nothing(make_router, available) -> None:
    decision = await make_router().route(request("how do you say 'overdue' in Spanish? for a mail"), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["chacho buenas tardes mi niña", "good morning my love", "buenos días mijo"])
def test_a_greeting_said_fondly_is_a_greeting(text: str) -> None:
    assert is_greeting(text)


async def test_a_greeting_routes_to_the_days_overview_only(make_router, available) -> None:
    decision = await make_router().route(request("buenos días mi rey"), available)
    assert decision.skills == frozenset({"agenda", "tasks", "environment"}), decision.reason


@pytest.mark.parametrize("text", ["vale, mila esker", "moitas grazas!", "god no", "no, déjalo así nomás"])
def test_thanks_in_spains_other_languages_and_a_flat_no_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["bore da!", "howdy 🤠", "morning la", "buenas tío", "illo buenas"])
def test_greetings_of_wales_texas_liverpool_and_spain_are_greetings(text: str) -> None:
    assert is_greeting(text)


async def test_a_greeting_with_a_short_question_keeps_the_overview(make_router, available) -> None:
    decision = await make_router().route(request("buenas tardes, qué tengo?"), available)
    assert {"agenda", "tasks", "environment"} <= decision.skills, decision.reason


@pytest.mark.parametrize("text", ["what's the time in Auckland right now? want to call my aunt",
                                  "q hora es en Lima ahora?", "tú qué opinas, compensa comprar coche eléctrico?"])
def test_world_time_and_opinions_are_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


async def test_days_counted_from_now_name_no_place(make_router, available) -> None:
    decision = await make_router().route(request("cuántos días hay de aquí al 6 de enero?"), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize(("text", "answer"), [
    ("after lunch", "Happy to — when should I remind you? The vet is at 15:00."),
    ("el jueves", "Vale, ¿qué día te lo pongo?"),
])
async def test_a_detail_the_last_answer_asked_for_keeps_its_skills(make_router, available, text: str,
                                                                   answer: str) -> None:
    decision = await make_router().route(request(text, ["tasks"], ["remind me about the vet"], answer), available)
    assert "tasks" in decision.skills, decision.reason


def test_a_first_word_that_greets_a_mate_does_not_end_a_follow_up() -> None:
    from bot.core.routing.clauses import first_leans_back
    assert first_leans_back("la cámara 3 ya ha vuelto", "Alertas: «cámara 3 sin señal» (02:30)", 10)


# Blind sets br26 and br27 (first runs on b3e6085: recall 0.938 and 0.971).
@pytest.mark.parametrize("text", ["klk, buen día!", "kaixo, arratsalde on", "hola buenas días"])
def test_more_greetings_of_the_day(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize("text", ["cheers pal", "ta bud 👍", "vale, así está perfecto", "gracies ho"])
def test_more_thanks_and_a_no_because_it_is_fine(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["q día cae el 12 de octubre este año?", "what day of the week does Christmas fall on",
                                  "cuánto es una milla en kilómetros?", "qué crees, le pongo otro piso a la tarta?",
                                  "hola! what time is it in Lima now"])
def test_weekdays_of_dates_units_and_opinions_are_for_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize(("text", "skill"), [
    ("what's on tomorrow, and will I need an umbrella for the school run?", "environment"),
    ("ayer me explicaste algo de las mareas vivas, qué era?", "memory"),
    ("q t dije del proveedor de harina?", "memory"),
    ("see what I've got free next week and reply to Ana", "agenda"),
])
async def test_cues_found_in_sets_26_and_27(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


async def test_forgetting_a_fact_is_no_chore(make_router, available) -> None:
    decision = await make_router().route(request("cuántos gramos tiene una onza? siempre se me olvida"), available)
    assert "tasks" not in decision.skills, decision.reason
