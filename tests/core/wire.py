"""The request shape the strictest OpenAI-compatible servers accept, as a checker for recorded requests.

Rules gathered from servers that reject what OpenAI tolerates: llama-cpp-python's server
(no `"content": null`), Mistral and vLLM's Mistral mode (9-character alphanumeric call ids),
chat templates that fail on a tool message that answers nothing, on a call left unanswered,
or on a system message anywhere but first (Gemma, Mistral).
"""

from __future__ import annotations

import re
from typing import Any

TOP_LEVEL = {"model", "messages", "tools", "tool_choice", "response_format"}
KEYS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls"},
    "tool": {"role", "content", "tool_call_id"},
}
CALL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def wire_problems(body: dict[str, Any]) -> list[str]:
    """Everything in one chat request that a strict server would refuse; empty when none."""
    problems = [f"unknown request field {key!r}" for key in body if key not in TOP_LEVEL]
    messages: list[dict[str, Any]] = body.get("messages", [])
    seen_ids: set[str] = set()
    expected: list[str] = []  # call ids still waiting for their tool message, in order
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in KEYS:
            problems.append(f"#{index}: unknown role {role!r}")
            continue
        if role == "system" and index != 0:
            problems.append(f"#{index}: a system message after the first message")
        extra = set(message) - KEYS[role]
        if extra:
            problems.append(f"#{index} ({role}): unknown fields {sorted(extra)}")
        if not isinstance(message.get("content"), str):
            problems.append(f"#{index} ({role}): content is {message.get('content')!r}, not a string")
        if role == "tool":
            if not expected:
                problems.append(f"#{index}: a tool message that answers no call")
            elif message.get("tool_call_id") != expected[0]:
                problems.append(f"#{index}: tool message for {message.get('tool_call_id')!r}, "
                                f"expected {expected[0]!r}")
                expected.pop(0)
            else:
                expected.pop(0)
            continue
        if expected:
            problems.append(f"#{index}: calls {expected} left unanswered before a {role} message")
            expected = []
        for call in message.get("tool_calls", []) if role == "assistant" else []:
            call_id = call.get("id", "")
            if not CALL_ID.match(call_id or ""):
                problems.append(f"#{index}: bad tool call id {call_id!r}")
            if call_id in seen_ids:
                problems.append(f"#{index}: tool call id {call_id!r} used twice")
            seen_ids.add(call_id)
            expected.append(call_id)
            if set(call) - {"id", "type", "function"} or set(call.get("function", {})) - {"name", "arguments"}:
                problems.append(f"#{index}: unknown fields in tool call {call_id!r}")
    if expected:
        problems.append(f"end: calls {expected} left unanswered")
    return problems
