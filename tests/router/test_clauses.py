"""Splitting a message into its requests, and telling follow-ups from small talk."""

from __future__ import annotations

import pytest

from bot.core.routing.clauses import (
    is_elliptical,
    is_greeting,
    is_small_talk,
    refers_back,
    split_clauses,
    without_quotations,
    without_small_talk,
)


@pytest.mark.parametrize(("text", "clauses"), [
    ("did the flight email come in? if so put it in my calendar and tell me the weather in lisbon",
     ("did the flight email come in", "put it in my calendar", "tell me the weather in lisbon")),
    ("busca el correo del vuelo, mételo en el calendario y dime qué tiempo hará",
     ("busca el correo del vuelo", "mételo en el calendario", "dime qué tiempo hará")),
    ("mira si me ha escrito el casero y si es así apúntame una tarea",
     ("mira si me ha escrito el casero", "apúntame una tarea")),
    ("check the backups; then read me the alerts", ("check the backups", "read me the alerts")),
    ("¿tengo algo el lunes? ¡avísame el domingo!", ("tengo algo el lunes", "avísame el domingo")),
])
def test_a_message_splits_into_its_requests(text: str, clauses: tuple[str, ...]) -> None:
    assert split_clauses(text) == clauses


@pytest.mark.parametrize("text", ["what's 15.5% of 240?", "qué tiempo hace?", "remind me at 8"])
def test_one_request_stays_whole(text: str) -> None:
    assert split_clauses(text) == (text.rstrip("?"),)


def test_a_lone_word_stays_with_its_neighbour_and_long_messages_are_capped() -> None:
    assert split_clauses("bread and milk") == ("bread milk",)
    many = " and ".join(f"do thing number {n}" for n in range(12))
    assert len(split_clauses(many)) == 6


@pytest.mark.parametrize("text", ["gracias!!", "perfect, thanks", "ok", "vale, genial", "nah that's fine",
                                  "buenas noches, hasta mañana", "thank you so much!", "hola", "graciasss",
                                  "ok perfect", "sounds good, thanks", "ta", "ta very much", "tysm!"])
def test_thanks_and_goodbyes_are_small_talk_and_never_refer_back(text: str) -> None:
    assert is_small_talk(text)
    assert not refers_back(text)


@pytest.mark.parametrize("text", ["nah, leave it", "no thanks", "don't bother", "never mind, forget it",
                                  "déjalo", "no hace falta, gracias", "así está bien", "da igual"])
def test_declining_an_offer_is_small_talk_and_never_refers_back(text: str) -> None:
    assert is_small_talk(text)
    assert not refers_back(text)


@pytest.mark.parametrize("text", ["how are you?", "hey, how's it going?", "how's your day going?", "what's up?",
                                  "qué tal estás?", "hola, cómo estás hoy?", "cómo te va?",
                                  "ok, that's all for now, thanks", "vale, eso es todo por ahora",
                                  "nada más por hoy, gracias", "that's it, cheers"])
def test_asking_after_the_assistant_and_closing_are_small_talk(text: str) -> None:
    assert is_small_talk(text)
    assert not refers_back(text)


@pytest.mark.parametrize("text", ["qué tal el tiempo mañana?", "how is the weather today?",
                                  "how are the tasks for today going?", "is that all for today on my agenda?",
                                  "cómo va el pedido de Amazon?", "nada más llegar, recuérdame llamar a Ana"])
def test_a_request_that_opens_like_small_talk_is_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize("text", ["good morning", "buenos días!", "morning!", "buenos diass ☀️",
                                  "buenas tardes, gracias"])
def test_a_greeting_of_the_day_on_its_own_is_not_small_talk(text: str) -> None:
    assert is_greeting(text) and not is_small_talk(text)


@pytest.mark.parametrize("text", ["y mañana?", "and tomorrow?", "¿y el sábado?", "what about Paris?", "mañana?"])
def test_fragments_are_elliptical_follow_ups(text: str) -> None:
    assert is_elliptical(text) and refers_back(text) and not is_small_talk(text)


@pytest.mark.parametrize(("text", "back"), [
    ("delete that one", True), ("read me the second one", True), ("mándaselo a Jorge", True),
    ("sí porfa", True), ("bórralo", True), ("mejor a las 8", True),
    ("what's on my calendar tomorrow?", False), ("add milk to the shopping list", False),
    ("qué tiempo hace en Madrid?", False),
    ("cambiarlo a las 5", True), ("muévela al viernes", True), ("hazlo", True), ("dímelo", True),
    # Words that only end like a Spanish clitic do not point back.
    ("what did I mention about Pablo's new job?", False), ("mira qué tal está el nuevo Kindle", False),
    ("people at the next table", False), ("la película del sábado en el cine", False),
    # A thing said before named by its article or its place in a list.
    ("y la del viaje de novios?", True), ("el de las 5, porfa", True), ("lo de ayer sigue en pie?", True),
    ("la primera ya está", True), ("the first one is done", True),
    ("la reunión de mañana a qué hora es?", False),
])
def test_references_to_the_previous_turn(text: str, back: bool) -> None:
    assert refers_back(text) is back


@pytest.mark.parametrize(("text", "focus"), [
    ("buenos días! qué tengo en la agenda esta mañana?", "qué tengo en la agenda esta mañana"),
    ("thanks! now email Ana the invoice", "now email Ana the invoice"),
    ("gracias!!", "gracias!!"),  # nothing but thanks: the message stays as it is
    ("what's on tomorrow?", "what's on tomorrow?"),
])
def test_greetings_and_thanks_around_a_request_are_set_aside(text: str, focus: str) -> None:
    assert without_small_talk(text) == focus


@pytest.mark.parametrize(("text", "kept"), [
    ("translate to spanish: 'could you send me the invoice by friday?'", "translate to spanish: …"),
    ("affect or effect here: 'the rain didn't ___ our plans'?", "affect or effect here: …?"),
    ('tweet "finally home, what a week" and check the weather', "tweet … and check the weather"),
    ("escribe en la nota «comprar pan y leche» por favor", "escribe en la nota … por favor"),
    # One quoted word names the object; apostrophes inside words are not quotes.
    ("open 'notes.md' and read the last line", "open 'notes.md' and read the last line"),
    ("I'm out, don't wait for me", "I'm out, don't wait for me"),
])
def test_quoted_passages_are_set_aside(text: str, kept: str) -> None:
    assert without_quotations(text) == kept


@pytest.mark.parametrize("text", ["abre el de marta", "borra la del martes", "lee los de ayer"])
def test_a_thing_named_by_its_article_after_its_verb_refers_back(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["the second one", "la otra", "that one", "ese mismo"])
def test_a_fragment_that_only_points_is_elliptical(text: str) -> None:
    assert is_elliptical(text)


@pytest.mark.parametrize("text", ["tomorrow at 10", "at 5pm on friday", "el lunes a las 8", "mañana por la tarde"])
def test_an_answer_to_when_is_a_fragment_of_the_last_request(text: str) -> None:
    assert is_elliptical(text) and refers_back(text)


@pytest.mark.parametrize("text", ["today I ran 10 km", "el lunes voy al médico", "the second email from Ana"])
def test_a_sentence_with_words_of_its_own_is_not_a_fragment(text: str) -> None:
    assert not is_elliptical(text)
