"""The reply language, read from the user's words and, when they say nothing of it, from the conversation."""

from __future__ import annotations

import pytest

from bot.core.language import detect_language


@pytest.mark.parametrize(("text", "lang"), [
    ("¿qué tengo mañana?", "es"), ("borra la nota de la compra", "es"),
    ("what's on tomorrow?", "en"), ("delete the shopping note", "en"),
])
def test_the_words_decide_when_they_show_a_language(text: str, lang: str) -> None:
    assert detect_language(text, fallback="es" if lang == "en" else "en") == lang


@pytest.mark.parametrize("text", ["harina", "ok", "Pablo", "18:30", "👍"])
def test_words_with_no_sign_of_a_language_keep_the_conversations(text: str) -> None:
    assert detect_language(text, fallback="es") == "es"
    assert detect_language(text) == "en"  # no conversation known: English


@pytest.mark.parametrize(("text", "lang"), [
    ("delete the appointment at Calle Núñez de Balboa 12", "en"),
    ("what's the weather in Cádiz tomorrow?", "en"), ("email José that I'm running late", "en"),
    ("recuérdame llamar a Ana", "es"), ("añade leche", "es"), ("¿y mañana?", "es"),
])
def test_a_spanish_name_in_an_english_message_leaves_it_english(text: str, lang: str) -> None:
    # An accent or ñ is one word's sign, not the message's: an English message may name a place or a person.
    assert detect_language(text, fallback="es" if lang == "en" else "en") == lang


def test_a_configured_language_wins() -> None:
    assert detect_language("what's on tomorrow?", "es", fallback="en") == "es"
