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


def test_a_configured_language_wins() -> None:
    assert detect_language("what's on tomorrow?", "es", fallback="en") == "es"
