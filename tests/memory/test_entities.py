"""Names a memory mentions, and relative dates anchored to the day they were said."""

from __future__ import annotations

from datetime import date

import pytest

from memory.entities import anchor_day, names

SAID = date(2023, 6, 19)  # a Monday


def test_names_are_proper_nouns_not_greetings_or_sentence_openers() -> None:
    assert names("Hey Gina! Good to see you. Thanks, I'm glad.") == ["gina"]
    # An uncommon word opening a sentence slips through; it is named so often that it links nothing.
    assert names("Hey Gina! Lost my job yesterday.") == ["gina", "lost"]
    assert names("Sorry about your job Jon, I also lost mine at Door Dash this month.") == ["jon", "door dash"]
    assert names("Wow, nice! Thanks Jon. Rome was great, I loved Rome.") == ["jon", "rome"]
    assert names("Ayer fuimos con Marta a la Sierra de Guadarrama y a Toledo.") == [
        "marta", "sierra de guadarrama", "toledo"]
    assert names("Great. Monday I start. I'm happy.") == []


def test_names_keep_accents_so_a_forgotten_name_is_found_in_the_file() -> None:
    assert names("Ayer cené con Sofía en Cádiz.") == ["sofía", "cádiz"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I went to a support group yesterday", date(2023, 6, 18)),
    ("Ayer fuimos al cine", date(2023, 6, 18)),
    ("Took a short trip last week to Rome", date(2023, 6, 12)),
    ("El sábado vamos a Toledo", date(2023, 6, 17)),
    ("Next Friday is the exam", date(2023, 6, 23)),
    ("We met two weeks ago", date(2023, 6, 5)),
    ("hace tres días que no duermo", date(2023, 6, 16)),
    ("I painted a sunrise today", date(2023, 6, 19)),
    ("I love painting", None),
])
def test_relative_dates_are_anchored_to_when_they_were_said(text: str, expected: date | None) -> None:
    assert anchor_day(text, SAID) == expected


def test_names_can_be_left_out_of_a_text_with_their_possessive() -> None:
    from memory.entities import without_names

    assert without_names("What do Melanie's kids like?", {"melanie"}) == "What do kids like?"
    assert without_names("Hey Melanie, did Tilly like Rome?", {"melanie"}) == "Hey, did Tilly like Rome?"
    assert without_names("¿Qué le regalo a Marta el sábado?", {"marta"}) == "¿Qué le regalo a el sábado?"
    assert without_names("When did Jon visit Rome?", set()) == "When did Jon visit Rome?"
