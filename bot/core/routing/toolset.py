"""The tools a conversation sees: a set that only grows, so the request prefix stays cacheable.

Providers cache the longest prefix a request shares with earlier ones, and tool definitions
come first. If every turn sent only the skills its router chose, the tool list would change
almost every turn and nothing after it would be cached. So a chat keeps every skill it has
been routed to, in the order each first appeared (a new skill's tools go after the old ones),
until a natural boundary: a long pause (the provider's cache is gone by then anyway) or a
fresh conversation (`/reset`, a new chat). A turn that failed open sends everything once
without adding it to the set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tools.registry import BoundTool


@dataclass
class _Conversation:
    skills: list[str] = field(default_factory=list)
    last_seen: datetime | None = None


class ConversationToolSets:
    """Per chat, the skills exposed so far; `idle` of zero turns the growing set off."""

    def __init__(self, idle: timedelta) -> None:
        self._idle = idle
        self._chats: dict[str, _Conversation] = {}

    def skills_for(self, chat: str, routed: frozenset[str], now: datetime, *, fresh: bool,
                   fail_open: bool = False) -> tuple[str, ...]:
        """The skills this turn exposes, oldest first; `fresh`: the conversation starts now."""
        if self._idle <= timedelta(0):
            return tuple(sorted(routed))
        conversation = self._chats.get(chat)
        if (conversation is None or fresh or conversation.last_seen is None
                or now - conversation.last_seen > self._idle):
            conversation = self._chats[chat] = _Conversation()
        conversation.last_seen = now
        if fail_open:
            return (*conversation.skills, *sorted(routed - set(conversation.skills)))
        conversation.skills.extend(sorted(routed - set(conversation.skills)))
        return tuple(conversation.skills)

    def forget(self, chat: str) -> None:
        self._chats.pop(chat, None)


def in_exposure_order(tools: Sequence[BoundTool], skills: Sequence[str]) -> list[BoundTool]:
    """Core first, then each skill's tools in the order the skills joined (canonical within one)."""
    rank = {skill: position for position, skill in enumerate(skills)}
    chosen = [bound for bound in tools if bound.skill == "core" or bound.skill in rank]
    return sorted(chosen, key=lambda bound: -1 if bound.skill == "core" else rank[bound.skill])
