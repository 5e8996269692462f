"""Phone-typed phrasings a blind set found the router missing: imperatives typed without their
accent (voseo too), "si" as "if", an acknowledgement before a fragment, dictated asides, and the
cue families for addresses, travel times, writing to someone, fixtures, Latin American past tenses
and what the assistant said before (bot/core/routing/clauses.py, router_data/)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.core.events import ChatRef, Platform
from bot.core.routing import RouteRequest
from bot.core.routing.clauses import is_elliptical, refers_back, split_clauses

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


def request(text: str, previous: Sequence[str] = ()) -> RouteRequest:
    return RouteRequest(CHAT, text, (), frozenset(previous))


@pytest.mark.parametrize("text", ["borrala", "reenviaselo a lucía", "añadile sal", "agendalo", "decile que no",
                                  "posponela al lunes", "escribile que ya voy", "pasamelo"])
def test_an_imperative_typed_without_its_accent_refers_back(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["hay reunión de padres en la escuela el jueves",
                                  "compra un regalo para el cumple de ana", "a qué hora sale el vuelo a roma mañana",
                                  "busca fundas para móviles baratos en internet", "llama a carlos mañana por la tarde",
                                  "visita a la abuela el domingo por la mañana",
                                  "update the mobile profile on the site"])
def test_words_that_merely_end_like_a_clitic_do_not(text: str) -> None:
    assert not refers_back(text)


@pytest.mark.parametrize("text", ["mira si llueve el sábado", "fijate si tengo algo el finde"])
def test_si_inside_a_request_is_if_and_points_back_at_nothing(text: str) -> None:
    assert not refers_back(text)


@pytest.mark.parametrize("text", ["si porfa", "vale si", "dile que si"])
def test_si_opening_or_closing_a_reply_is_yes(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["ok and the price?", "vale, y el sábado?", "genial, the second one"])
def test_an_acknowledgement_before_a_fragment_leaves_it_a_fragment(text: str) -> None:
    assert is_elliptical(text)


@pytest.mark.parametrize("text", ["thanks a lot", "genial mil gracias me salvaste", "👍", ""])
def test_thanks_are_not_made_a_fragment_by_dropping_their_first_word(text: str) -> None:
    assert not is_elliptical(text) and not refers_back(text)


@pytest.mark.parametrize(("text", "parts"), [
    ("lee el correo de paso dime si llueve", 2),
    ("check my mail btw remind me about the gym", 2),
    ("mira la agenda otra cosa busca una farmacia", 2),
])
def test_dictated_asides_open_a_request_of_their_own(text: str, parts: int) -> None:
    assert len(split_clauses(text)) == parts


@pytest.mark.parametrize(("text", "skill"), [
    ("dónde queda el consulado de Perú?", "environment"),
    ("what's the address of the natural history museum", "environment"),
    ("cómo llego al estadio desde la estación?", "environment"),
    ("cuánto se tarda en bici hasta el puerto", "environment"),
    ("how long is the drive to the lake house", "environment"),
    ("escribile a la profe que Tomás está enfermo", "email"),
    ("dile a mi socio que la reunión se retrasa", "email"),
    ("el partido del Celta es el sábado?", "web"),
    ("when's the next Warriors game", "web"),
    ("esta tarde arreglé la persiana del salón", "timeline"),
    ("registra que hoy doné ropa", "timeline"),
    ("qué me recomendaste para el dolor de cabeza?", "memory"),
    ("acordate de que soy alérgico a las nueces", "memory"),
    ("recordame el jueves pagar la luz", "tasks"),
    ("agendá la revisión del auto para el viernes", "agenda"),
    ("dime el tiempo para el puente", "environment"),
])
def test_the_new_cue_families_name_their_skill(make_router, available, text: str, skill: str) -> None:
    assert skill in make_router().named(text, available)


def test_an_email_address_is_not_a_place_to_look_up(make_router, available) -> None:
    router = make_router()
    assert "environment" not in router.named("cuál es la dirección de correo de soporte?", available)
    assert "environment" not in router.named("what's the email address of the landlord?", available)


@pytest.mark.parametrize(("text", "skill"), [
    ("cuanto se tarda en coche a Segovia", "environment"),
    ("dame la dirección de la comisaría más próxima", "environment"),
    ("escribile a mi hermana que llego el martes", "email"),
    ("esta mañana corrí media hora por el parque", "timeline"),
    ("recordame mañana temprano llamar al seguro", "tasks"),
])
async def test_a_request_in_those_words_gets_its_skill(make_router, available, text: str, skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "previous"), [
    ("movela a las 6", "agenda"), ("reenviaselo a Lucía", "email"), ("agregale pimienta", "notes"),
    ("ok and the opening hours?", "web"), ("y cuánto tardo a pie", "environment"),
])
async def test_a_follow_up_in_those_words_keeps_the_last_skill(make_router, available, text: str,
                                                              previous: str) -> None:
    decision = await make_router().route(request(text, previous=[previous]), available)
    assert previous in decision.skills, decision.reason


async def test_an_if_inside_a_request_does_not_carry_the_last_skill_over(make_router, available) -> None:
    decision = await make_router().route(request("mira si llueve el sábado", previous=["email"]), available)
    assert "environment" in decision.skills and "email" not in decision.skills, decision.reason


async def test_a_mail_then_a_dictated_aside_routes_both(make_router, available) -> None:
    decision = await make_router().route(
        request("lee el último correo de la gestoría de paso dime qué temperatura hará el domingo"), available)
    assert {"email", "environment"} <= decision.skills, decision.reason
