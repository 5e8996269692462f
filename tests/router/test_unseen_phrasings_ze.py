"""Phrasings an eleventh pair of blind sets found the router missing (br48 and br49, first runs on 0c3b8d5: recall
0.962 and 0.962), in other words: Kiwi and Central American small talk, how worn out the user is, a day exclaimed at,
a question to the assistant in voseo, a fact asked to pass the time, the time somewhere asked without an apostrophe,
who rings from there, one more thing that happened for the record just kept; and cues for heat said "mucha calor", a
plan put on a day's afternoon, sending to someone named, what a crop fetches, a maker's figures
(bot/core/routing/clauses.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import is_small_talk, needs_only_the_model, only_chats, says_who_asked
from tests.router.turns import request


@pytest.mark.parametrize("text", ["sweet as, ta", "ay bendito, gracias", "a la gran, gracias"])
def test_more_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["uf, estoy reventado del cansancio", "honestly I'm absolutely knackered",
                                  "madre mía, qué día más largo llevo", "vaya semanita más pesada tuvimos",
                                  "y vos, te aburrís alguna vez?", "che, vos soñás?"])
def test_worn_out_a_day_exclaimed_and_voseo_about_you_only_chat(text: str) -> None:
    assert only_chats(text)


@pytest.mark.parametrize("text", ["estoy reventado, recuérdame mañana a las 7 lo del taller",
                                  "qué semana más pesada, apúntame el lunes al dentista"])
def test_a_request_beside_them_is_no_chat(text: str) -> None:
    assert not only_chats(text)


@pytest.mark.parametrize("text", ["tell me a fun fact about otters", "dime una curiosidad sobre los pulpos",
                                  "whats the time in Auckland now?"])
def test_a_fact_to_pass_the_time_and_the_time_somewhere_need_only_the_model(text: str) -> None:
    assert needs_only_the_model(text)


@pytest.mark.parametrize("text", ["my brother's ringing from there", "me llama desde allá"])
def test_who_rings_from_the_place_asked_about_is_no_request(text: str) -> None:
    assert says_who_asked(text)


async def test_one_more_thing_that_happened_keeps_the_record(make_router, available) -> None:
    decision = await make_router().route(
        request("ah and the vet came by, the calf's fine", previous=["timeline"], recent=["log that I fed 40 head"],
                answer="Logged: fed 40 head today."), available)
    assert "timeline" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("mañana va a hacer mucha calor en la obra?", "environment"),
    ("poneme el domingo por la tarde asado con los pibes", "agenda"),
    ("send the recipe from my notes to Maria", "email"),
    ("what are merino bales going for per kilo right now", "web"),
    ("what's the tyre pressure for a 2015 hilux", "web"),
])
async def test_cues_found_in_sets_48_and_49(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["uf, estoy reventado del cansancio", "dime una curiosidad sobre los pulpos"])
async def test_they_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert not decision.skills, decision.reason
