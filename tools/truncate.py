"""Deterministic cutting of tool results: head and tail kept, the cut stated."""

from __future__ import annotations


def truncate(text: str, limit: int) -> str:
    """Cut `text` to about `limit` characters keeping its start and end.

    The marker line says how many characters were removed, so the model knows the
    result is partial. Same input, same output.
    """
    if limit <= 0 or len(text) <= limit:
        return text
    marker_template = "\n[… {cut:,} of {total:,} characters cut …]\n"
    marker_size = len(marker_template.format(cut=len(text), total=len(text)))
    keep = max(limit - marker_size, 2)
    head = keep * 2 // 3
    tail = keep - head
    cut = len(text) - head - tail
    marker = marker_template.format(cut=cut, total=len(text))
    return text[:head] + marker + (text[-tail:] if tail else "")
