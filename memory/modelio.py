"""Ask the memory model for JSON that fits a schema; one corrective retry, then give up."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from bot.errors import ModelError
from bot.llm import ChatMessage, ModelClient, Role

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


class InvalidOutput(Exception):
    """The model's answer does not fit the schema (or a check on its content)."""


async def ask_json(model: ModelClient, messages: list[ChatMessage], schema: type[T], *,
                   user_key: str, check: Callable[[T], None] | None = None, attempts: int = 2) -> T | None:
    """The parsed answer, or None after `attempts` invalid answers or a model failure."""
    conversation = list(messages)
    for attempt in range(1, attempts + 1):
        try:
            completion = await model.complete(Role.MEMORY, conversation, user_key=user_key,
                                              response_format={"type": "json_object"})
        except ModelError as exc:
            log.warning("memory model failed (%s): %s", schema.__name__, exc)
            return None
        text = completion.text or ""
        try:
            parsed = schema.model_validate_json(_strip_fence(text))
            if check is not None:
                check(parsed)
            return parsed
        except (ValidationError, InvalidOutput, ValueError) as exc:
            problem = _explain(exc)
            log.warning("memory model answer %d invalid for %s: %s", attempt, schema.__name__, problem)
            conversation += [
                {"role": "assistant", "content": text[:4000]},
                {"role": "user", "content": f"That answer is invalid: {problem}. Answer again with only "
                                            "the JSON object, fixed."},
            ]
    return None


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        stripped = stripped[stripped.find("{"):] if "{" in stripped else stripped
    return stripped


def _explain(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
    return str(exc)[:500]


def schema_hint(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), ensure_ascii=False)
