"""Token counts of tool schemas: the same figure however it is asked for, each spec counted once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core import tokens
from bot.core.tokens import count_specs, count_tools


class _Spec:
    """A spec that says how often its schema was built."""

    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description
        self.built = 0

    def openai_schema(self) -> dict[str, Any]:
        self.built += 1
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": {"type": "object", "properties": {}}}}


def test_specs_count_as_their_schemas_do() -> None:
    specs = [_Spec("agenda_list", "List the events of a day."), _Spec("notes_search", "Búsqueda en las notas.")]
    schemas = [spec.openai_schema() for spec in specs]
    assert count_specs(specs) == count_tools(schemas) > 0


def test_a_spec_is_serialized_once_however_many_turns_count_it() -> None:
    spec = _Spec("tasks_add", "Add a task to a list.")
    first = count_specs([spec])
    for _ in range(5):
        assert count_specs([spec]) == first
    assert spec.built == 1


def test_a_new_spec_with_the_same_name_is_counted_anew() -> None:
    short, long = _Spec("web_read", "Read a page."), _Spec("web_read", "Read a page. " * 20)
    assert count_specs([long]) > count_specs([short])


class _CountingEncoding:
    def __init__(self, real: Any) -> None:
        self.real = real
        self.encoded: list[str] = []

    def encode(self, text: str) -> list[int]:
        self.encoded.append(text)
        return list(self.real.encode(text))


def test_a_text_is_tokenized_once_however_often_it_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_BY_DIGEST", {})  # nothing counted before this test
    counting = _CountingEncoding(tokens._encoding())
    monkeypatch.setattr(tokens, "_encoding", lambda: counting)
    said = "Mañana a las 9 tengo dentista; recuérdamelo una hora antes, por favor. 🦷"
    first = tokens.count_text(said)
    assert first == len(counting.real.encode(said)) > 10
    assert [tokens.count_text(said) for _ in range(3)] == [first] * 3
    assert counting.encoded == [said]
    assert tokens.count_text(said + "!") != 0 and len(counting.encoded) == 2  # another text is counted anew
