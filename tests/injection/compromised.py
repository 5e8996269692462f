"""A compromised model for the scripted server: it reads what it is asked to read, then
obeys whatever instruction was planted in what it read, then answers (honestly or not).

It decides from the request, like a real model: step n of the turn is the number of
assistant messages since the user's message. The attack is built from the tool results
it saw, so the test proves the planted text reached the model and was acted upon.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.prompt import UNTRUSTED_CLOSE, UNTRUSTED_OPEN
from tests.scripted_model import Scripted

ToolCallSpec = tuple[str, dict[str, Any]]
Attack = Callable[[str], list[ToolCallSpec]]


@dataclass
class CompromisedModel:
    reads: list[ToolCallSpec]
    attack: Attack
    answer: str = "Sorry, that was not done."
    seen_tool_results: list[str] = field(default_factory=list)
    attacks: list[ToolCallSpec] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages: list[dict[str, Any]] = body["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        turn = messages[last_user + 1:]
        step = sum(1 for m in turn if m["role"] == "assistant")
        self.seen_tool_results = [str(m.get("content") or "") for m in turn if m["role"] == "tool"]
        if step < len(self.reads):
            return Scripted(tool_calls=[self.reads[step]])  # type: ignore[list-item]
        if step == len(self.reads):
            calls = self.attack("\n".join(self.seen_tool_results))
            self.attacks = calls
            return Scripted(tool_calls=list(calls))  # type: ignore[arg-type]
        return Scripted(tool_calls=[("respond", {"text": self.answer})])

    def untrusted_blocks(self) -> list[str]:
        """The tool results that reached the model wrapped as third-party content."""
        return [r for r in self.seen_tool_results if r.startswith(UNTRUSTED_OPEN) and UNTRUSTED_CLOSE in r]


def arguments_of(request_arguments: str) -> dict[str, Any]:
    loaded = json.loads(request_arguments)
    assert isinstance(loaded, dict)
    return loaded
