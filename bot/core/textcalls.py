"""Tool calls a model wrote into its answer text instead of the API's `tool_calls` field.

Many small local models (or servers started without tool support) write Hermes-style
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks or a bare JSON object
naming a tool. Only calls to tools offered in this turn are taken; their arguments are
validated later by the same code as native calls. The results go back to the model in the
same format (`<tool_response>`), since such a model was never shown the native one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from bot.llm import ChatMessage, ToolCall

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_ID_PREFIX = "text"


@dataclass(frozen=True)
class TextCalls:
    calls: tuple[ToolCall, ...]
    text: str  # what the model wrote around the calls


def parse_text_calls(text: str, known: Collection[str], round_no: int) -> TextCalls | None:
    """The calls written in `text` to tools named in `known`, or None when there are none."""
    found: list[dict[str, Any]] = []
    rest = text
    if "<tool_call>" in text:
        for match in _HERMES.finditer(text):
            found.extend(_objects(match.group(1)))
        rest = _HERMES.sub("", text)
    else:
        for block in [m.group(1) for m in _FENCE.finditer(text)] or [text]:
            found.extend(_objects(block))
        rest = _FENCE.sub("", text) if _FENCE.search(text) else ""
    calls: list[ToolCall] = []
    for item in found:
        name, arguments = _name_and_arguments(item)
        if name is None or name not in known:
            continue
        calls.append(ToolCall(id=f"{_ID_PREFIX}{round_no}x{len(calls)}", name=name,
                              arguments=json.dumps(arguments, ensure_ascii=False)))
    if not calls:
        return None
    return TextCalls(calls=tuple(calls), text=rest.strip())


def results_message(calls: Sequence[ToolCall], results: dict[str, str]) -> ChatMessage:
    """One user-role message carrying every result, in the order the calls were written."""
    blocks = [
        "<tool_response>\n" + json.dumps({"name": call.name, "content": results[call.id]}, ensure_ascii=False)
        + "\n</tool_response>"
        for call in calls
    ]
    return {"role": "user", "content": "\n".join(blocks)}


def _objects(block: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in `block` (a list of objects counts as several)."""
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    index = 0
    while True:
        start = _next_open(block, index)
        if start < 0:
            return objects
        try:
            value, end = decoder.raw_decode(block, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        if isinstance(value, dict):
            objects.append(value)
        elif isinstance(value, list):
            objects.extend(item for item in value if isinstance(item, dict))
        index = end


def _next_open(block: str, index: int) -> int:
    positions = [p for p in (block.find("{", index), block.find("[", index)) if p >= 0]
    return min(positions) if positions else -1


def _name_and_arguments(item: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    function = item.get("function")
    if isinstance(function, dict):  # {"type": "function", "function": {...}} copied from the API shape
        item = function
    name = item.get("name") or item.get("tool")
    arguments = item.get("arguments", item.get("parameters", item.get("args", {})))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None, {}
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None, {}
    return name, arguments
