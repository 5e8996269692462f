"""The days a question names, in English and Spanish, absolute or counted from today."""

from __future__ import annotations

from datetime import date

import pytest

from memory.periods import Period, asked_period

TODAY = date(2024, 2, 10)  # a Saturday


@pytest.mark.parametrize(("question", "start", "end"), [
    ("What did Joanna finish on 23 January, 2022?", date(2022, 1, 23), date(2022, 1, 23)),
    ("What book did Tim finish on 8th December, 2023?", date(2023, 12, 8), date(2023, 12, 8)),
    ("Where was the picture shared on December 1,2023 taken?", date(2023, 12, 1), date(2023, 12, 1)),
    ("Where was John between August 11 and August 15 2023?", date(2023, 8, 11), date(2023, 8, 15)),
    ("What did Nate make in November 2022?", date(2022, 11, 1), date(2022, 11, 30)),
    ("¿Qué hice el 3 de mayo de 2022?", date(2022, 5, 3), date(2022, 5, 3)),
    ("¿Qué pasó a finales de marzo de 2021?", date(2021, 3, 1), date(2021, 3, 31)),
    ("What happened on 2022-05-03?", date(2022, 5, 3), date(2022, 5, 3)),
    ("What did we do in 2023?", date(2023, 1, 1), date(2023, 12, 31)),
    # Without a year: the latest occurrence up to next week.
    ("¿Qué hice el 3 de mayo?", date(2023, 5, 3), date(2023, 5, 3)),
    ("What did I do in February?", date(2024, 2, 1), date(2024, 2, 29)),
    ("What is on on 14 February?", date(2024, 2, 14), date(2024, 2, 14)),
    ("What did I do on 29 February?", date(2020, 2, 29), date(2020, 2, 29)),
    # Relative dates count from today, a few days either side.
    ("What did I do yesterday?", date(2024, 2, 6), date(2024, 2, 12)),
    ("¿Qué cené el sábado pasado?", date(2024, 1, 31), date(2024, 2, 6)),
])
def test_the_days_a_question_names(question: str, start: date, end: date) -> None:
    assert asked_period(question, TODAY) == Period(start, end)


@pytest.mark.parametrize("question", [
    "May I ask what Tim likes?",          # a modal, not the month
    "What do Melanie's kids like?",
    "Marzo is the name of my cat",        # a month word with nothing that makes it a date
    "I have 2000 photos",                 # a number, not a year
])
def test_no_period_where_the_question_names_no_day(question: str) -> None:
    assert asked_period(question, TODAY) is None


def test_without_today_only_dates_with_a_year_count() -> None:
    assert asked_period("What did I do on 3 May?") is None
    assert asked_period("What did I do yesterday?") is None
    assert asked_period("What did I do on 3 May 2022?") == Period(date(2022, 5, 3), date(2022, 5, 3))
    # A year said elsewhere in the question dates a day without one.
    assert asked_period("Between 3 May and 9 May 2022?") == Period(date(2022, 5, 3), date(2022, 5, 9))
