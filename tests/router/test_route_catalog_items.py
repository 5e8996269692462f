"""The routing bench reads its items strictly: a context it cannot read stops it, not a silent follow-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.route_catalog import load_items


def write(tmp_path: Path, context: list[object]) -> Path:
    path = tmp_path / "items.jsonl"
    item = {"id": "x-1", "lang": "en", "context": context, "message": "and tomorrow?", "skills": ["environment"]}
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return path


def test_context_turns_with_roles_are_read(tmp_path: Path) -> None:
    context = [{"role": "user", "content": "weather today?"}, {"role": "assistant", "content": "Sunny, 21 °C."}]
    [item] = load_items(write(tmp_path, context))
    assert item["context"] == context


@pytest.mark.parametrize("context", [["weather today?", "Sunny."], [{"role": "bot", "content": "Sunny."}],
                                     [{"role": "user"}]])
def test_a_context_turn_without_role_and_content_names_its_item(tmp_path: Path, context: list[object]) -> None:
    with pytest.raises(SystemExit, match="x-1"):
        load_items(write(tmp_path, context))
