"""Phrasings a sixth pair of blind sets found the router missing (br38 and br39, first runs on cf48721: recall 0.981
and 0.986, small talk routed to nothing 0.57 and 0.86), in other words: thanks said as a blessing, to a mate or in
Welsh, Catalan or French; news promised for later; asking to vent; a bare "capital of…?"; real words the typo mender
turned into cue words; and cues for dry weather and data loggers (also for crossing off and departure times, which
the old code found in other words)
(bot/core/routing/clauses.py, bot/core/routing/lexicon.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import asks_for_comfort, is_small_talk, needs_only_the_model, only_chats
from bot.core.routing.lexicon import Spelling, everyday_words
from tests.router.turns import request


@pytest.mark.parametrize("text", ["que dios se lo pague, de verdad", "muchas gracias compadre", "ta ace 👍",
                                  "diolch yn fawr!", "merci nena", "thanks a million, grand", "uf qué frío hace"])
def test_more_thanks_and_remarks_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["gracias compa, y apúntame el dentista el lunes", "grand, add eggs to the list"])
def test_thanks_before_a_request_are_not_all_there_is(text: str) -> None:
    assert not is_small_talk(text)


async def test_thanks_to_a_mate_after_a_list_keeps_nothing(make_router, available) -> None:
    decision = await make_router().route(
        request("cheers compadre", ["tasks"], ["what's on my shopping list"], "Milk, eggs, bread."), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", ["vale, luego te cuento qué tal la entrevista",
                                  "ok I'll let you know how the MOT goes", "mañana te digo"])
def test_news_promised_for_later_is_small_talk(text: str) -> None:
    assert only_chats(text)


@pytest.mark.parametrize("text", ["luego te cuento, y apúntame el taller el martes",
                                  "I'll tell you what, add milk to the list"])
def test_a_request_beside_the_promise_is_still_one(text: str) -> None:
    assert not only_chats(text)


@pytest.mark.parametrize("text", ["necesito desahogarme un rato, vaya turno",
                                  "can I vent about the landlord for a sec"])
def test_asking_to_vent_asks_for_comfort(text: str) -> None:
    assert asks_for_comfort(text)


def test_a_bare_capital_question_needs_only_the_model() -> None:
    assert needs_only_the_model("capital of Peru? settling a bet")


def test_everyday_words_are_not_mended_into_cue_words() -> None:
    spelling = Spelling.learn(["nudge me at 9", "acabo de llegar a casa", "the calendar for tomorrow"],
                              everyday_words(("en", "es")))
    assert spelling.mend("don't judge me") == "don't judge me"
    assert spelling.mend("mi primo acaba de llegar") == "mi primo acaba de llegar"
    assert spelling.mend("my calendr") == "my calendar"  # a slip is still mended


async def test_an_everyday_word_one_letter_from_a_cue_names_no_skill(make_router, available) -> None:
    decision = await make_router().route(request("ciudad más poblada de Bolivia? no me juzgues, don't judge me"),
                                         available)
    assert "tasks" not in decision.skills, decision.reason


async def test_data_loggers_report_through_the_inbox(make_router, available) -> None:
    decision = await make_router().route(request("anything off the temperature logger in the cold room?"), available)
    assert "inbox" in decision.skills, decision.reason


async def test_asking_if_it_stays_dry_asks_for_the_weather(make_router, available) -> None:
    decision = await make_router().route(
        request("is it gonna be dry for it?", ["agenda"], ["whats on thursday"],
                "Thursday: 06:30 Shearing at Tyn-y-Coed, 19:00 Young Farmers meeting."), available)
    assert "environment" in decision.skills, decision.reason
