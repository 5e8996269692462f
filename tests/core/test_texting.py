"""The question an answer closes on, read alike by the router and the honesty check."""

from __future__ import annotations

import pytest

from bot.core.texting import closing_question


@pytest.mark.parametrize(("answer", "question"), [
    ("Sunny, 24°. Want me to remind you to take the sun cream? 🙂", "Want me to remind you to take the sun cream?"),
    ("No puedo mandarlo. ¿Quieres que te ponga un recordatorio?", "Quieres que te ponga un recordatorio?"),
    ("Which one?", "Which one?"),
    ("Done. Anything else I can do", ""),
    ("x" * 5000 + ". Shall I add it?", "Shall I add it?"),
])
def test_the_question_an_answer_closes_on(answer: str, question: str) -> None:
    assert closing_question(answer) == question
