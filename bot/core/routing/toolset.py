"""The tools a conversation sees: a set that only grows, so the request prefix stays cacheable.

Providers cache the longest prefix a request shares with earlier ones, and tool definitions
come first. If every turn sent only the skills its router chose, the tool list would change
almost every turn and nothing after it would be cached. So a chat keeps every skill it has
been routed to, in the order each first appeared (a new skill's tools go after the old ones),
until a natural boundary: a long pause (the provider's cache is gone by then anyway) or a
fresh conversation (`/reset`, a new chat). A turn that failed open sends everything once
without adding it to the set. The set is stored in the database, so a restart keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory.db import Database
from tools.registry import BoundTool


@dataclass
class _Conversation:
    skills: list[str] = field(default_factory=list)
    last_seen: datetime | None = None


class ConversationToolSets:
    """Per chat, the skills exposed so far; `idle` of zero turns the growing set off."""

    def __init__(self, idle: timedelta, db: Database | None = None) -> None:
        self._idle = idle
        self._db = db
        self._chats: dict[str, _Conversation] = {}

    async def skills_for(self, chat: str, routed: frozenset[str], now: datetime, *, fresh: bool,
                         fail_open: bool = False) -> tuple[str, ...]:
        """The skills this turn exposes, oldest first; `fresh`: the conversation starts now."""
        if self._idle <= timedelta(0):
            return tuple(sorted(routed))
        conversation = self._chats.get(chat) or await self._load(chat)
        if (conversation is None or fresh or conversation.last_seen is None
                or now - conversation.last_seen > self._idle):
            conversation = _Conversation()
        self._chats[chat] = conversation
        before = (list(conversation.skills), conversation.last_seen)
        conversation.last_seen = now
        if fail_open:
            exposed = (*conversation.skills, *sorted(routed - set(conversation.skills)))
        else:
            conversation.skills.extend(sorted(routed - set(conversation.skills)))
            exposed = tuple(conversation.skills)
        if (list(conversation.skills), conversation.last_seen) != before:
            await self._store(chat, conversation)
        return exposed

    async def _load(self, chat: str) -> _Conversation | None:
        if self._db is None:
            return None
        row = await self._db.fetchone(
            "SELECT skills, last_seen FROM conversation_tool_sets WHERE chat_key = ?", (chat,))
        if row is None:
            return None
        try:
            skills = [str(skill) for skill in json.loads(row["skills"])]
            return _Conversation(skills, datetime.fromisoformat(row["last_seen"]))
        except (ValueError, TypeError):
            return None  # a damaged row: the conversation starts a new set, nothing else is lost

    async def _store(self, chat: str, conversation: _Conversation) -> None:
        if self._db is None or conversation.last_seen is None:
            return
        await self._db.execute(
            "INSERT INTO conversation_tool_sets (chat_key, skills, last_seen) VALUES (?, ?, ?) "
            "ON CONFLICT(chat_key) DO UPDATE SET skills = excluded.skills, last_seen = excluded.last_seen",
            (chat, json.dumps(conversation.skills), conversation.last_seen.isoformat()))


def in_exposure_order(tools: Sequence[BoundTool], skills: Sequence[str]) -> list[BoundTool]:
    """Core first, then each skill's tools in the order the skills joined (canonical within one)."""
    rank = {skill: position for position, skill in enumerate(skills)}
    chosen = [bound for bound in tools if bound.skill == "core" or bound.skill in rank]
    return sorted(chosen, key=lambda bound: -1 if bound.skill == "core" else rank[bound.skill])
