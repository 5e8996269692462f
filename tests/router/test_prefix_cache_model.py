"""The token bench's model of provider prefix caching, and why it says each token was not cached."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.token_cost import Cause, PrefixCache, Sent
from bot.core.prompt import users_words, volatile_tail

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SYSTEM = {"role": "system", "content": "You are a helpful assistant. " * 20}


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": f"does {name} things " * 10,
                                             "parameters": {"type": "object", "properties": {}}}}


def newest(text: str, minute: int) -> dict[str, Any]:
    """The newest user message as the turn builds it: the software's note, then the words."""
    note = volatile_tail((NOW + timedelta(minutes=minute)).replace(tzinfo=UTC), None, [])
    return {"role": "user", "content": f"{note}\n\n{users_words(text)}"}


def history(*turns: str) -> list[dict[str, Any]]:
    """Earlier turns as history renders them: the words alone, then the answer."""
    out: list[dict[str, Any]] = []
    for text in turns:
        out += [{"role": "user", "content": text}, {"role": "assistant", "content": f"answer to {text}"}]
    return out


def request(tools: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"tools": [tool(name) for name in tools], "messages": [SYSTEM, *messages]}


def causes(*sent: Sent, ttl: int = 10) -> tuple[Counter[Cause], PrefixCache]:
    cache = PrefixCache(min_cached=0, block=1, ttl=timedelta(minutes=ttl))
    for one in sent:
        cache.send(one)
    assert sum(cache.uncached.values()) == cache.total - cache.cached  # every missed token has one cause
    return cache.uncached, cache


def second_only(first: Sent, second: Sent) -> Counter[Cause]:
    together, _ = causes(first, second)
    alone, _ = causes(first)
    return together - alone


def test_history_without_the_note_resends_only_the_previous_words() -> None:
    first = Sent(NOW, request(["agenda"], [newest("what is on today?", 0)]), "what is on today?", True)
    second = Sent(NOW + timedelta(minutes=2), request(
        ["agenda"], [*history("what is on today?"), newest("and tomorrow?", 2)]), "and tomorrow?", True)
    missed = second_only(first, second)
    assert set(missed) <= {Cause.USER_RERENDERED, Cause.NEW_ANSWER, Cause.NEW_NOTE, Cause.NEW_WORDS,
                           Cause.ROUNDING}
    assert 0 < missed[Cause.USER_RERENDERED] <= 8  # the old words, not the tools or the system
    assert missed[Cause.NEW_ANSWER] and missed[Cause.NEW_NOTE] and missed[Cause.NEW_WORDS]
    assert missed[Cause.ROUNDING] <= 1  # a token that straddles the point where the prefixes part


def test_a_tool_joining_the_list_is_blamed_for_everything_it_resends() -> None:
    first = Sent(NOW, request(["agenda"], [newest("what is on today?", 0)]), "what is on today?", True)
    second = Sent(NOW + timedelta(minutes=1), request(
        ["agenda", "weather"], [*history("what is on today?"), newest("will it rain?", 1)]), "will it rain?", True)
    missed = second_only(first, second)
    assert missed[Cause.NEW_TOOLS] > 50  # the weather schema, sent for the first time
    assert missed[Cause.TOOLS_CHANGED] > 100  # the system message and the history after it, again
    assert Cause.USER_RERENDERED not in missed  # the prefix broke before the history


def test_an_expired_cache_resends_everything_but_the_new_message() -> None:
    first = Sent(NOW, request(["agenda"], [newest("what is on today?", 0)]), "what is on today?", True)
    later = NOW + timedelta(minutes=30)
    second = Sent(later, request(["agenda"], [*history("what is on today?"), newest("and tomorrow?", 30)]),
                  "and tomorrow?", True)
    missed, cache = causes(first, second, ttl=10)
    assert cache.cached == 0
    assert missed[Cause.COLD] > 200 and missed[Cause.NEW_WORDS] and missed[Cause.NEW_ANSWER]


def test_a_window_step_resends_the_history_and_a_true_prefix_resends_nothing() -> None:
    turns = ["one", "two", "three"]
    first = Sent(NOW, request(["agenda"], [*history(*turns), newest("four", 0)]), "four", True)
    stepped = Sent(NOW + timedelta(minutes=1), request(["agenda"], [*history(*turns[2:], "four"), newest("five", 1)]),
                   "five", True)
    assert second_only(first, stepped)[Cause.WINDOW_STEP] > 0
    # A history that kept the note (a true prefix up to the user's message) but not the tool round.
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "agenda", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "call_1", "content": "nothing today"}
    note = newest("four", 0)
    round_two = Sent(NOW, request(["agenda"], [*history(*turns), note, call, result]), "four", False)
    next_turn = Sent(NOW + timedelta(minutes=1), request(
        ["agenda"], [*history(*turns), note, {"role": "assistant", "content": "answer to four"},
                     newest("five", 1)]), "five", True)
    missed = second_only(round_two, next_turn)
    assert set(missed) <= {Cause.NEW_ANSWER, Cause.NEW_NOTE, Cause.NEW_WORDS, Cause.ROUNDING}
    assert missed[Cause.NEW_ANSWER] > 0 and missed[Cause.NEW_WORDS] > 0 and missed[Cause.ROUNDING] <= 1


def test_cached_tokens_follow_the_minimum_and_the_blocks() -> None:
    one = Sent(NOW, request(["agenda", "weather"], [newest("hello", 0)]), "hello", True)
    again = Sent(NOW, request(["agenda", "weather"], [newest("hello", 0), {"role": "assistant", "content": "hi"}]),
                 "hello", False)
    cache = PrefixCache(min_cached=64, block=64, ttl=timedelta(minutes=10))
    cache.send(one)
    cache.send(again)
    assert cache.cached % 64 == 0 and cache.cached >= 64
    assert cache.uncached[Cause.ROUNDING] < 64
    high = PrefixCache(min_cached=10_000, block=64, ttl=timedelta(minutes=10))
    high.send(one)
    high.send(again)
    assert high.cached == 0 and high.uncached[Cause.ROUNDING] > 0
