"""A notification another system pushed in, as the inbox endpoint received and validated it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SOURCE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Notification:
    """One push, as received (already validated by the endpoint)."""

    source: str
    message: str
    title: str = ""
    status: str | None = None
    subject: str | None = None
    priority: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    url: str | None = None
