"""Retrieval latency per turn and file size at 1k / 10k / 100k cards for one user among many.

Cards are synthetic: bodies of Zipf-distributed words from a 20,000-word vocabulary, and
RANDOM unit vectors (384 dims) instead of e5 embeddings — embedding 100k texts on
two cores would take hours, and the SQLite part's latency does not depend on what the
vectors mean. The query text is 4 words drawn like the bodies but past the 100 most frequent
ranks: in a Zipf vocabulary those behave like stopwords (each is in most cards), and real
queries lose their stopwords in `fts_query`. Each card names two people or places (capitalised
words, Zipf-distributed), which recall's second round follows. Each size gets a fresh file:
the measured user holds N cards (one an hour), 50 other users hold N/5 between them. After the
fill, the user's vectors are split into cells as a consolidation pass does (from 16k cards on;
the `cells` column says how many, and `cells s` how long training them took).

Per query, two figures: `sqlite` is `Retriever.search` with every embedding free (FTS5 BM25 +
vec0 binary KNN + exact rescoring + fusion + card fetch); `total` is what a turn waits for: the
query embedded with e5 (real, in process) as the router does, and the search run alongside it,
taking the router's vector when it needs it. Two sets of queries: `plain` (the words above) and
`named`, which also name someone and a day ("... with Name on 03 May 2020"): a name common in
the memory is left out of the question's embedding, so the search embeds its own words, beside
the router's embedding (`embed` adds up the time of both embeddings), and the day adds a ranker
over the cards of that day and the week after. The query plans of the keyword and vector
searches are printed for the largest size.

    .venv/bin/python bench/memory_scale.py [--sizes 1000,10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import cells
from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.embeddings import LocalEmbedder, Vector
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

    def name(self) -> str:
        """A capitalised word from the 2,000 most frequent after the first 100: people and places
        that recall's second round follows (the most frequent ones link nothing, as in life)."""
        return self._vocab[100 + int(self._rng.zipf(1.3)) % 2000].capitalize()

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
                                  synthesis=f"{words.text(20)} with {words.name()} in {words.name()} "
                                            f"{words.text(20)}", topics=tuple(words.text(3).split()))
                await cards.insert(tx, user_key, draft, vectors[i], when)


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


async def query_plans(db: Database, cards: CardStore, user_key: str, query: str, vector: Vector) -> list[str]:
    """EXPLAIN QUERY PLAN of the keyword and vector searches, as the stores run them."""
    plans: list[str] = []
    found = await cards.vectors.cells_of(user_key)
    probed = None if found is None else cells.probes(vector, found.ids, found.centroids, cards.vectors.probes)
    for label, (sql, params) in (("keyword", cards.keyword_sql(user_key, query, 30)),
                                 ("vector", cards.vectors.nearest_sql(user_key, vector, 30, None, probed))):
        rows = await db.fetchall("EXPLAIN QUERY PLAN " + sql, params)
        plans.append(f"{label}: " + " | ".join(str(row["detail"]) for row in rows))
    return plans


@dataclass(frozen=True)
class SizeResult:
    cards: int
    others: int
    load_s: float
    cells_s: float  # splitting the user's vectors into cells (0 when below the threshold)
    cell_count: int
    plain: Timings
    named: Timings  # questions naming someone and a day
    mb: float
    plans: list[str]


async def measure(size: int, queries: int, folder: Path, query_embedder: FreshQueries, plans: bool) -> SizeResult:
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
    per_other = max(size // 5 // OTHER_USERS, 1)
    if await cards.count("telegram:owner") != size:  # a kept file of this size is measured again as it is
        await fill(db, cards, embedder, words, "telegram:owner", size, start)
        for index in range(OTHER_USERS):
            await fill(db, cards, embedder, words, f"telegram:other{index}", per_other, start)
    load_seconds = time.perf_counter() - began
    began = time.perf_counter()
    await vectors.refresh_cells("telegram:owner")  # what a consolidation pass does after writing cards
    cells_seconds = time.perf_counter() - began
    await db.raw("PRAGMA wal_checkpoint(TRUNCATE)")
    await db.raw("ANALYZE")
    retriever = Retriever(cards, query_embedder)
    free = Retriever(cards, embedder, retriever.tuning)  # the same search with embeddings for free
    now = start + timedelta(days=5000)
    span_days = max(size // 24, 1)  # the measured user's cards cover this many days, one an hour
    for _ in range(20):  # warm the page cache and the model
        text = words.query(4)
        [vector] = await query_embedder.embed([text], is_query=True)
        await retriever.search("telegram:owner", text, 10, now, query_vector=vector)
    plain = await _time_queries(retriever, free, query_embedder, now, [words.query(4) for _ in range(queries)])
    # Questions that name someone (the common names are left out of the embedding, so a turn
    # embeds again) and a day (the cards of that day and the week after are ranked too).
    named = await _time_queries(retriever, free, query_embedder, now, [
        f"{words.query(3)} with {words.name()} on "
        f"{(start + timedelta(days=int(rng.integers(span_days)))).strftime('%d %B %Y')}"
        for _ in range(queries)])
    explained = await query_plans(db, cards, "telegram:owner", words.query(4), vector) if plans else []
    found = await vectors.cells_of("telegram:owner")
    await db.close()
    size_mb = path.stat().st_size / 1e6
    return SizeResult(size, per_other * OTHER_USERS, load_seconds, cells_seconds,
                      0 if found is None else len(found.ids), plain, named, size_mb, explained)


@dataclass(frozen=True)
class Timings:
    sqlite: tuple[float, float]  # p50, p95 in ms
    embed: tuple[float, float]
    total: tuple[float, float]


async def _time_queries(retriever: Retriever, free: Retriever, query_embedder: FreshQueries, now: datetime,
                        texts: list[str]) -> Timings:
    """Each query searched as a turn does (beside the router's embedding of it, whose vector it may
    take), then again with embeddings for free (`sqlite`)."""
    embed_ms: list[float] = []
    sqlite_ms: list[float] = []
    total_ms: list[float] = []
    for text in texts:
        t0 = time.perf_counter()
        routing = asyncio.ensure_future(query_embedder.embed([text], is_query=True))

        async def routers(made: asyncio.Future[list[Vector]] = routing) -> Vector | None:
            return (await made)[0]

        before = query_embedder.spent
        hits = await retriever.search("telegram:owner", text, 10, now, query_vector=routers)
        await routing
        t1 = time.perf_counter()
        embed_ms.append((query_embedder.spent - before) * 1000)
        total_ms.append((t1 - t0) * 1000)
        await free.search("telegram:owner", text, 10, now)
        sqlite_ms.append((time.perf_counter() - t1) * 1000)
        assert all(hit.card.user_key == "telegram:owner" for hit in hits)
    return Timings(_percentiles(sqlite_ms), _percentiles(embed_ms), _percentiles(total_ms))


class FreshQueries:
    """e5 for the query, never from a cache: every turn's message is new."""

    def __init__(self) -> None:
        self._inner = LocalEmbedder(cache_size=1)
        self.spent = 0.0  # seconds spent embedding, all calls

    @property
    def name(self) -> str:
        return "random-384"  # the index's name: the query's width matches, its meaning is not used

    @property
    def dim(self) -> int:
        return DIM

    def forget(self, needles: Sequence[str]) -> None:
        """Nothing to drop: no cache."""

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]:
        began = time.perf_counter()
        try:
            return await self._inner.embed([f"{text} {time.perf_counter_ns()}" for text in texts], is_query=is_query)
        finally:
            self.spent += time.perf_counter() - began


async def run(sizes: list[int], queries: int, keep: Path | None = None) -> list[SizeResult]:
    query_embedder = FreshQueries()
    if keep is not None:
        return [await measure(size, queries, keep, query_embedder, size == max(sizes)) for size in sizes]
    with tempfile.TemporaryDirectory() as folder:
        return [await measure(size, queries, Path(folder), query_embedder, size == max(sizes))
                for size in sizes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, default=None, help="keep the SQLite files in this folder")
    parser.add_argument("--reuse", action="store_true", help="with --keep: measure the kept files again")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        for size in sizes if not args.reuse else ():
            for leftover in args.keep.glob(f"scale-{size}.sqlite3*"):
                leftover.unlink()  # each size starts from a fresh file
    results = asyncio.run(run(sizes, args.queries, args.keep))
    print("random 384-d card vectors and synthetic Zipf text (see docstring); one user among "
          f"{OTHER_USERS} others; query embedded by e5 in process\n")
    print(f"{'cards':>8} {'others':>8} {'load s':>7} {'cells':>5} {'cells s':>7} {'queries':>7} {'sqlite p50':>10}"
          f" {'sqlite p95':>10} {'embed p50':>9} {'total p50':>9} {'total p95':>9} {'file MB':>8}")
    for r in results:
        for kind, t in (("plain", r.plain), ("named", r.named)):
            print(f"{r.cards:>8} {r.others:>8} {r.load_s:>7.1f} {r.cell_count:>5} {r.cells_s:>7.1f} {kind:>7}"
                  f" {t.sqlite[0]:>10.2f} {t.sqlite[1]:>10.2f} {t.embed[0]:>9.2f} {t.total[0]:>9.2f}"
                  f" {t.total[1]:>9.2f} {r.mb:>8.1f}")
    for r in results:
        for line in r.plans:
            print(f"\nplan at {r.cards} cards, {line}")
    print()
    for r in results:
        label = f"{r.cards // 1000}k"
        for part, (p50, p95) in (("sqlite", r.plain.sqlite), ("total", r.plain.total),
                                 ("named_sqlite", r.named.sqlite), ("named_total", r.named.total)):
            print(f"memory_scale {label} {part}_p50_ms = {p50:.2f}")
            print(f"memory_scale {label} {part}_p95_ms = {p95:.2f}")
        print(f"memory_scale {label} query_embed_p50_ms = {r.plain.embed[0]:.2f}")
        print(f"memory_scale {label} file_mb = {r.mb:.1f}")
    by_size = {r.cards: r for r in results}
    if 10_000 in by_size and 100_000 in by_size:
        big, small = by_size[100_000], by_size[10_000]
        print(f"memory_scale sqlite_p95_ratio_100k_10k = {big.plain.sqlite[1] / small.plain.sqlite[1]:.2f}")
        print(f"memory_scale total_p95_ratio_100k_10k = {big.plain.total[1] / small.plain.total[1]:.2f}")


if __name__ == "__main__":
    main()
