"""Phrasings two more blind sets found the router missing (br30 and br31, first runs on the br28-29 fixes: recall
0.948 and 0.952), in other words: "ya" and "simón" as yes, thanks said with "maje", "po" or "anyway", hellos in
Belfast and French, a question for the model after an opener ("bro, qué significa…"), kind words asked for at the
end, a later piece that asks about the thing just shown, items picked by their bare numbers, Scots spellings, and
cues for what is due, the week ahead, a CRM, a camera, results and timetables (bot/core/routing/clauses.py,
bot/core/routing/router.py, bot/core/texting.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import (
    asks_for_comfort,
    ends_leaning_back,
    is_greeting,
    is_small_talk,
    needs_only_the_model,
    offer_taken_up,
    picks_a_listed_item,
)
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", ["ya, add it", "simón, ponlo"])
def test_ya_and_simon_say_yes_to_an_offer(text: str) -> None:
    assert offer_taken_up(text, "Done. Want me to add the dentist to your calendar too?")


def test_ya_no_is_no_yes() -> None:
    assert not offer_taken_up("ya no hace falta", "¿Quieres que te lo recuerde mañana?")


@pytest.mark.parametrize("text", ["vale maje, gracias", "listo po", "dale, gracias", "ok anyway, cheers",
                                  "perfecto, ya con eso"])
def test_thanks_said_with_a_word_of_the_region(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["how about ye", "bonjour!", "buongiorno!"])
def test_more_hellos_of_the_day(text: str) -> None:
    assert is_greeting(spelled_out(text))


@pytest.mark.parametrize("text", ["hey bro, what does 'grand' mean in Dublin?", "oye, qué significa 'guagua'?",
                                  "hiya, how do you say 'stretch your arms' in french?",
                                  "whats the hebrew for good luck", "cuánto son 12 pies cuadrados en metros? hoy lo "
                                  "necesito", "ideas for my sister's 40th? she likes hiking and wine"])
def test_questions_for_the_model_after_an_opener(text: str) -> None:
    assert needs_only_the_model(spelled_out(text))


@pytest.mark.parametrize("text", ["lost the final on penalties. cheer me up", "me han dejado, dame ánimos porfa"])
def test_kind_words_asked_for_at_the_end(text: str) -> None:
    assert asks_for_comfort(text)


@pytest.mark.parametrize("text", ["no idea who that is. what tripped it, does it say?",
                                  "y cuándo fue lo del granizo? búscalo ahí"])
def test_a_later_piece_that_asks_about_the_thing_just_shown(text: str) -> None:
    assert ends_leaning_back(text)


def test_a_later_piece_of_thanks_leans_on_nothing() -> None:
    assert not ends_leaning_back("that's colder than here, back home it's -10. anyway thanks")


LISTED = "Open tasks:\n1. Call the plumber\n2. Pay the gas\n3. Book the MOT"


@pytest.mark.parametrize("text", ["tick off 2 and 3, did them this morning", "borra el 1 y el 3"])
def test_items_picked_by_their_bare_numbers(text: str) -> None:
    assert picks_a_listed_item(text, LISTED)


@pytest.mark.parametrize("text", ["remind me at 3 to call mum", "tick off 7", "I walked 2 km"])
def test_a_time_an_amount_or_a_number_off_the_list_picks_nothing(text: str) -> None:
    assert not picks_a_listed_item(text, LISTED)


async def test_a_picked_item_keeps_the_lists_skill(make_router, available) -> None:
    decision = await make_router().route(
        request("knock off 2, done it", ["tasks"], ["what's on my list?"], LISTED), available)
    assert "tasks" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("have I anything due this week", "tasks"),
    ("el viernes, tengo algo?", "agenda"),
    ("q tengo pa el finde?", "tasks"),
    ("what came through the CRM overnight?", "inbox"),
    ("anything from the garage camera today?", "inbox"),
    ("did Man United lose again last night", "web"),
    ("when's the next ferry from Oban to Mull", "web"),
    ("how many lessons did I give in March?", "timeline"),
    ("cuánto fue lo que cobré el lunes?", "timeline"),
    ("whit's it like ootside the noo", "environment"),
])
async def test_cues_found_in_sets_30_and_31(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


def test_scots_spellings_are_spelled_out() -> None:
    assert spelled_out("whit's that fae the school, it wis aff") == "what's that from the school, it was off"
