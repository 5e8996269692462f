"""Phrasings a fifteenth pair of blind sets found the router missing (br56 and br57, first runs on bc8a5b0: recall
0.972 and 0.985), in other words: thanks said with whom it is said to, thanks for something, praise, "I ask for
nothing", the assistant's name, the time elsewhere after an acknowledgement; an item of a list asked to be done;
and cues for a Spanish list, wind, nearby places, bookings from one's site, sending to someone, the feed reader
and a strike out there (bot/core/routing/clauses.py, bot/core/texting.py, tools/skills/*.py).
"""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import items_to_do, needs_only_the_model, only_chats
from bot.core.texting import spelled_out
from tests.router.turns import request


@pytest.mark.parametrize("text", [
    "ah brilliant, cheers duck",
    "jajaja me has hecho reír, gracias papito 😂",
    "gracias x todo lo de esta tarde. descansa",
    "thanks for sorting all that mate",
    "huevón sos lo máximo",
    "you're an absolute legend",
    "bueno ya me voy a descansar mijita, cuídate",
    "that means a lot. thank you",
    "y tú cómo te llamas?",
    "what's your name by the way",
])
async def test_thanks_praise_and_goodbyes_route_to_nothing(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text, previous=["agenda"], recent=["move the vet to friday"],
                                                 answer="Moved: vet, Friday 10:00."), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", [
    "long one today, three school trips back to back and the coach heater was broken. "
    "not asking for anything, just wanted to tell someone",
    "nada que pedirte eh, hoy se me murió una oveja y estoy bajoneado, solo quería contártelo",
    "nothing to ask tonight really, sat on the harbour wall watching the boats come in. how's thee?",
])
async def test_saying_nothing_is_asked_is_small_talk_however_long(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert decision.skills == frozenset(), decision.reason


@pytest.mark.parametrize("text", [
    "gracias por avisar, y apúntame lo del gas para el lunes",
    "thanks for that, now add bin bags to the shopping list",
    "not asking for much, just remind me at 6 to ring mum",
])
async def test_a_request_beside_thanks_still_routes(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert "tasks" in decision.skills, decision.reason


def test_a_request_inside_thanks_is_no_chat() -> None:
    assert not only_chats("gracias por avisar apúntalo")
    assert only_chats("gracias por avisar")


def test_the_time_elsewhere_after_an_acknowledgement_needs_only_the_model() -> None:
    assert needs_only_the_model("vale. oye y qué hora es en lima ahora?")


def test_x_stands_for_por_only_before_its_words() -> None:
    assert spelled_out("gracias x la ayuda") == "gracias por la ayuda"
    assert spelled_out("ta for today x") == "ta for today x"
    assert spelled_out("12 cajas x 6") == "12 cajas x 6"


def test_the_item_asked_to_be_done_is_its_line() -> None:
    answer = "Pending:\n1. Buy feed\n2. Email the vet the test results\n3. Fix the gate"
    assert items_to_do("go on, do number 2 and then tick it off", answer) == ("Email the vet the test results",)
    assert items_to_do("delete 2", answer) == ()


async def test_doing_a_listed_item_uses_what_it_names(make_router, available) -> None:
    answer = "Your to-dos:\n1. Renew the van insurance\n2. Email Joanne the quote for the wall\n3. Order gravel"
    decision = await make_router().route(
        request("ok do 2 now, the quote is in my notes, then cross it off", previous=["tasks"],
                recent=["what's left on my list"], answer=answer), available)
    assert "email" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("busca en internet a qué hora cierra el vivero y ponme en la lista tierra y abono", "tasks"),
    ("apúntame pa recoger las gafas el viernes y dime si tengo correo del óptico", "tasks"),
    ("resúmeme la agenda de mañana y si va a haber mucho viento en la costa", "environment"),
    ("hay alguna ferretería x acá que abra el domingo? y recuérdame lo del grifo", "environment"),
    ("mira si entraron reservas nuevas de la web y contéstale a la de Pamela", "inbox"),
    ("tengo el presupuesto en las notas, mándaselo a Gonzalo y dile que es para el martes", "email"),
    ("vacíame el lector, dalo todo por leído, y qué tengo mañana?", "news"),
    ("qué pasó con la huelga de estibadores? si sigue cambia la reunión del puerto al jueves", "web"),
])
async def test_cues_found_in_sets_56_and_57(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason
