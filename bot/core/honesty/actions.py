"""Kinds of action a turn can take, and which tool performs which kind.

The same kinds describe three things that must agree: what the user asked for (intent),
what the answer says was done (claims), and what a call really did (the call record).
"""

from __future__ import annotations

import re
from enum import StrEnum


class ActionKind(StrEnum):
    STORE = "store"  # add, write, create, save, remember, update, schedule, mark
    REMOVE = "remove"  # delete, forget, cancel
    SEND = "send"  # email, reply, forward, share, pay: data (or money) reaches someone else
    REMIND = "remind"  # a reminder that will fire later
    FETCH = "fetch"  # a request to a third party that backs no claim of change
    ANY = "any"  # asked for without saying which ("and eggs too"): any change backs it


# Order matters: a verb that changes something wins over a noun that names a lookup
# ("clear_shopping_list" clears, "mark_read" marks), which matters for installed skills too.
_BY_NAME = (
    (re.compile(r"delete|forget|cancel|remove|unsubscribe|clear|erase|wipe|purge"), ActionKind.REMOVE),
    (re.compile(r"send|reply|forward|post|pay|transfer|share"), ActionKind.SEND),
    (re.compile(r"remind"), ActionKind.REMIND),
    (re.compile(r"add|append|write|create|save|set|update|mark|remember|log|rename|move|edit|insert|"
                r"schedule|complete|attach|store"), ActionKind.STORE),
    (re.compile(r"fetch|search|read|list"), ActionKind.FETCH),
)


def kind_of_tool(name: str) -> ActionKind:
    """The kind of action a tool with side effects performs, judged from its name."""
    lowered = name.lower()
    for pattern, kind in _BY_NAME:
        if pattern.search(lowered):
            return kind
    return ActionKind.STORE


# A reminder is also something stored ("added a reminder"); cancelling one is a removal.
BACKS: dict[ActionKind, frozenset[ActionKind]] = {
    ActionKind.STORE: frozenset({ActionKind.STORE, ActionKind.REMIND}),
    ActionKind.REMOVE: frozenset({ActionKind.REMOVE}),
    ActionKind.SEND: frozenset({ActionKind.SEND}),
    ActionKind.REMIND: frozenset({ActionKind.REMIND}),
    ActionKind.FETCH: frozenset({ActionKind.FETCH}),
    ActionKind.ANY: frozenset({ActionKind.STORE, ActionKind.REMOVE, ActionKind.SEND, ActionKind.REMIND}),
}
"""For a claimed kind, the kinds of call that can back it."""
