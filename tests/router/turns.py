"""A turn as the router sees it, for tests that route one message after a given last turn."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.events import ChatRef, Platform
from bot.core.routing import RouteRequest

CHAT = ChatRef(Platform.CONSOLE, chat_id="c", user_id="u")


def request(text: str, previous: Sequence[str] = (), recent: Sequence[str] = (), answer: str = "") -> RouteRequest:
    """`text` after a turn routed to `previous`, with the chat's `recent` user messages and the last `answer`."""
    return RouteRequest(CHAT, text, tuple(recent), frozenset(previous), answer)
