"""Hybrid recall over a user's cards: BM25 and vector KNN fused by reciprocal rank.

Relevance alone picks which cards come back; age then re-orders them (a recent card
moves up among equals) but never drops one. Everything is filtered by user id at the
source: FTS rows are joined to their card's user, KNN runs in the user's partition.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol

import numpy as np

from memory.cards import Card, CardStore
from memory.categories import category_members
from memory.embeddings import Embedder, Vector
from memory.entities import names, without_names
from memory.periods import asked_period
from memory.text import content_words


@dataclass(frozen=True)
class RetrievalTuning:
    candidates: int = 30      # taken from each ranker before fusion (more adds noise: tuned on LoCoMo dev)
    rrf_k: float = 20.0
    # Equal since the question's embedding leaves out names common in the memory (see below): the
    # vector side had been pulled towards greetings, and keywords were weighted 1.3 to make up.
    keyword_weight: float = 1.0
    vector_weight: float = 1.0
    title_weight: float = 1.0
    synthesis_weight: float = 1.0
    details_weight: float = 0.6
    age_half_life_days: float = 365.0
    age_strength: float = 0.15  # at most this share of a score is lost to age
    # The second round, driven by the first round's best cards (the seeds). Tuned on LoCoMo dev:
    # link weights of 0.25-1 tried (0.5 best; 1 lost single answers), wider windows lost more single
    # answers than they found spread ones, and so did moving the query vector towards the seeds'
    # (Rocchio), a KNN from each seed, keyword feedback from the seeds' words and favouring other days.
    # Also tried on dev, no multi-hop gain at 10: spreading the final order over days (each further
    # card of a day decayed by 0.9-0.45: single answers lost up to 0.19), and a ranker over the
    # cards titled with a name the question names (weight 0.5 or 1: multi-hop 0.303/0.310, was 0.310).
    seeds: int = 5                  # 0 switches the second round off
    link_rank_weight: float = 0.5   # cards sharing a name with a seed, about a day within the window
    link_window_days: int = 30
    link_per_name: int = 20         # a name in more cards than this within the window links nothing
    sub_question_weight: float = 0.5  # each sub-question's rankers, when a splitter is configured
    # A card whose title (its subject) names someone or something the question names is about
    # it, not just mentioning it: its score is multiplied by 1 + this.
    subject_boost: float = 1.0  # tuned on LoCoMo dev (0.3, 1 and 3 tried; 1 was best overall)
    # A name in at least this share of the user's newest `common_name_sample` cards (the user,
    # a partner, the other side of a chat) is left out of the query's embedding and its keywords:
    # it says nothing about which memory is meant and pulls towards every one that greets or
    # addresses them (the subject lift still uses it). 0 keeps every name. On LoCoMo dev any share
    # from 0.03 to 0.3 did the same (the people who talk are in nearly every memory, the rest in
    # few); leaving it out of the keywords too gave dev multi-hop all@10 0.310 -> 0.317, all 0.759 -> 0.762.
    common_name_share: float = 0.2
    common_name_sample: int = 500
    # In a young memory every name is in a good share of a handful of cards, and is still what
    # tells them apart: a memory of fewer cards than this counts as this many.
    common_name_floor: int = 50
    # A question that names days ("on 3 May", "in April", "ayer") adds a ranker: the cards of
    # those days (and of the week after: things are told after they happen) by meaning. A span
    # holding more cards than `period_cards` (a whole year of a busy memory) points at nothing.
    period_weight: float = 1.0  # tuned on LoCoMo dev (0.5, 1 and 2 tried; 1 and 2 alike)
    period_after_days: int = 7
    period_cards: int = 500
    # A question that asks for a kind of thing ("what activities", "qué mascotas") adds a keyword
    # ranker over the kind's usual members (swimming, hiking...; perro, gato...): the memories
    # that answer it name the members, not the kind, and the embedding does not link them.
    # Tuned on LoCoMo dev (multi-hop all@10 0.317 -> 0.345): weight 0.3/0.5/0.7/1 tried (1 lost
    # single answers), 20 or 30 candidates alike (50 worse). Also tried and worse: the question's
    # own words in the same query, only the cards of the person the question names, and a KNN from
    # the question embedded with the members.
    category_weight: float = 0.5
    category_candidates: int = 20
    # A memory that only asks ("How did the talk go?") or says next to nothing past names ("Wow, that's great,
    # Mel!") holds no fact to recall: its score loses up to this share, less for each content word it has up
    # to `informative_words`. Tuned on LoCoMo dev (cut 0.2-0.5, 3 or 8 words, questions counted or not):
    # 0.3 and 3 with questions as empty gave all@10 0.766 -> 0.775, multi-hop unchanged; 8 words lost multi-hop.
    empty_cut: float = 0.3
    informative_words: int = 3


MIN_CONTENT_LETTERS = 4
"""Shorter words ("got", "day", "fun") say little on their own: they do not make a memory informative."""
LONG_WORDS = 4
"""A memory of at least this many words per content word wanted is taken as informative unread."""


@dataclass(frozen=True)
class Hit:
    card: Card
    score: float
    keyword_rank: int | None
    vector_rank: int | None


class Splitter(Protocol):
    async def split(self, user_key: str, question: str) -> list[str]: ...


# The embedding of the words as written, made elsewhere in the turn (the router's), awaited only when the
# search uses it; None when it cannot be had (another model made it, or the router failed).
SharedVector = Callable[[], Awaitable[Vector | None]]


class Retriever:
    def __init__(self, cards: CardStore, embedder: Embedder, tuning: RetrievalTuning | None = None,
                 splitter: Splitter | None = None) -> None:
        self._cards = cards
        self._embedder = embedder
        self.tuning = tuning or RetrievalTuning()
        self.splitter = splitter  # optional: sub-questions from the memory model, each searched too

    async def search(self, user_key: str, query: str, limit: int, now: datetime | None = None,
                     query_vector: Vector | SharedVector | None = None, today: date | None = None) -> list[Hit]:
        """`query_vector`: the query's embedding when the turn makes it anyway (one per turn), or how to
        await it; `today`: the user's date, from which the question's relative dates count."""
        if not query.strip() or limit <= 0:
            return []
        tuning = self.tuning
        meant = await self._meaning_of(user_key, query)
        # The words are searched (SQLite's thread) while the vector is made (a worker thread, or the
        # router's): a question without its common names is embedded here, beside the router's embedding.
        shared = query_vector if meant == query else None
        embedding = asyncio.ensure_future(self._vector(meant, shared))
        try:
            keyword = await self._cards.keyword(
                user_key, meant, tuning.candidates,
                (tuning.title_weight, tuning.synthesis_weight, tuning.details_weight))
            members = await self._category_members(user_key, meant) if tuning.category_weight > 0 else []
            vector = await embedding
        finally:
            if not embedding.done():
                embedding.cancel()
        neighbours = await self._cards.vectors.nearest(user_key, vector, tuning.candidates)
        fused: dict[int, float] = {}
        keyword_rank: dict[int, int] = {}
        vector_rank: dict[int, int] = {}
        for rank, (card_id, _) in enumerate(keyword, start=1):
            keyword_rank[card_id] = rank
        for rank, neighbour in enumerate(neighbours, start=1):
            vector_rank[neighbour.card_id] = rank
        self._fuse(fused, [card_id for card_id, _ in keyword], tuning.keyword_weight)
        self._fuse(fused, [neighbour.card_id for neighbour in neighbours], tuning.vector_weight)
        self._fuse(fused, members, tuning.category_weight)
        if tuning.period_weight > 0:
            await self._asked_days(user_key, query, vector, today, fused)
        if self.splitter is not None:
            await self._sub_questions(user_key, query, fused)
        if tuning.seeds > 0 and tuning.link_rank_weight > 0 and fused:
            await self._second_round(user_key, fused)
        cards: dict[int, Card] = {}
        pool = max(limit, tuning.candidates) * 2
        if tuning.subject_boost > 0:
            cards = await self._lift_subjects(user_key, query, fused, pool)
        if tuning.empty_cut > 0:
            await self._cut_empty(user_key, fused, cards, pool)
        chosen = sorted(fused, key=lambda card_id: (-fused[card_id], card_id))[:limit]
        if any(card_id not in cards for card_id in chosen):
            cards = await self._cards.many(user_key, chosen)
        hits = [
            Hit(cards[card_id], fused[card_id], keyword_rank.get(card_id), vector_rank.get(card_id))
            for card_id in chosen if card_id in cards
        ]
        if now is not None:
            hits.sort(key=lambda hit: -hit.score * self._age_factor(hit.card, now))
        return hits

    async def _vector(self, meant: str, shared: Vector | SharedVector | None) -> Vector:
        """The embedding of `meant`: the shared one when there is one, else made here."""
        if isinstance(shared, np.ndarray):
            return shared
        if shared is not None and (vector := await shared()) is not None:
            return vector
        [made] = await self._embedder.embed([meant], is_query=True)
        return made

    async def _meaning_of(self, user_key: str, query: str) -> str:
        """What the query's embedding and keywords are made of: the query without the names that
        are in a good share of the user's memories (the subject lift still uses them)."""
        asked = names(query)
        if not asked or self.tuning.common_name_share <= 0:
            return query
        shares = await self._cards.name_shares(user_key, asked, self.tuning.common_name_sample,
                                               self.tuning.common_name_floor)
        common = {name for name, share in shares.items() if share >= self.tuning.common_name_share}
        if not common:
            return query
        rest = without_names(query, common)
        return rest if content_words(rest) else query

    async def _asked_days(self, user_key: str, query: str, vector: Vector, today: date | None,
                          fused: dict[int, float]) -> None:
        """Fuse the cards of the days the question names, ranked by meaning."""
        period = asked_period(query, today)
        if period is None:
            return
        tuning = self.tuning
        period = period.widened(0, tuning.period_after_days)
        inside = await self._cards.ids_between(user_key, period.start, period.end, tuning.period_cards + 1)
        if not inside or len(inside) > tuning.period_cards:
            return
        nearest = await self._cards.vectors.nearest_among(inside, vector, tuning.candidates)
        self._fuse(fused, [neighbour.card_id for neighbour in nearest], tuning.period_weight)

    async def _category_members(self, user_key: str, query: str) -> list[int]:
        """The cards naming the usual members of the kinds of things the question asks for, best first."""
        members = category_members(query)
        if not members:
            return []
        tuning = self.tuning
        found = await self._cards.keyword(
            user_key, " ".join(members), tuning.category_candidates,
            (tuning.title_weight, tuning.synthesis_weight, tuning.details_weight))
        return [card_id for card_id, _ in found]

    async def _sub_questions(self, user_key: str, query: str, fused: dict[int, float]) -> None:
        """Search each sub-question too, fused at a lower weight than the question itself."""
        assert self.splitter is not None
        parts = await self.splitter.split(user_key, query)
        if not parts:
            return
        tuning = self.tuning
        vectors = await self._embedder.embed(parts, is_query=True)
        for part, part_vector in zip(parts, vectors, strict=True):
            keyword = await self._cards.keyword(
                user_key, part, tuning.candidates,
                (tuning.title_weight, tuning.synthesis_weight, tuning.details_weight))
            neighbours = await self._cards.vectors.nearest(user_key, part_vector, tuning.candidates)
            self._fuse(fused, [card_id for card_id, _ in keyword], tuning.keyword_weight * tuning.sub_question_weight)
            self._fuse(fused, [n.card_id for n in neighbours], tuning.vector_weight * tuning.sub_question_weight)

    def _fuse(self, fused: dict[int, float], ranked: list[int], weight: float) -> None:
        for rank, card_id in enumerate(ranked, start=1):
            fused[card_id] = fused.get(card_id, 0.0) + weight / (self.tuning.rrf_k + rank)

    async def _second_round(self, user_key: str, fused: dict[int, float]) -> None:
        """Follow what the first round found to the memories that name the same people, places,
        projects or events around the same days; fused into the first round (RRF)."""
        tuning = self.tuning
        seeds = sorted(fused, key=lambda card_id: (-fused[card_id], card_id))[:tuning.seeds]
        linked = await self._linked(user_key, seeds, dict(fused))
        self._fuse(fused, linked, tuning.link_rank_weight)

    async def _linked(self, user_key: str, seeds: list[int], first: dict[int, float]) -> list[int]:
        """Cards sharing a (not too common) name with a seed, about a day near the seed's; ranked by
        how many seeds they share names with, then by the first round's score."""
        tuning = self.tuning
        mentions = await self._cards.names_of(user_key, seeds)
        window = timedelta(days=tuning.link_window_days)
        votes: dict[int, int] = {}
        for mention in mentions:
            others = await self._cards.mentioning(user_key, mention.name, mention.day - window,
                                                  mention.day + window, tuning.link_per_name + 1)
            if len(others) > tuning.link_per_name:
                continue  # named all the time around then (the user, a partner): it links nothing
            for other in others:
                if other.card_id != mention.card_id:
                    votes[other.card_id] = votes.get(other.card_id, 0) + 1
        return sorted(votes, key=lambda card_id: (-votes[card_id], -first.get(card_id, 0.0), card_id))

    async def _lift_subjects(self, user_key: str, query: str, fused: dict[int, float],
                             pool: int) -> dict[int, Card]:
        """Lift the best `pool` cards whose title names someone the question names (on LoCoMo,
        97% of the turns answering a question about one person were that person's own words);
        returns the cards it read, which hold every card that can end up on top."""
        asked = set(names(query))
        if not asked:
            return {}
        best = sorted(fused, key=lambda card_id: (-fused[card_id], card_id))[:pool]
        cards = await self._cards.many(user_key, best)
        for card_id, card in cards.items():
            if asked & set(names(card.title)):
                fused[card_id] *= 1.0 + self.tuning.subject_boost
        return cards

    async def _cut_empty(self, user_key: str, fused: dict[int, float], cards: dict[int, Card], pool: int) -> None:
        """Lower the best `pool` cards that only ask, or say next to nothing (`cards`: those already read)."""
        best = sorted(fused, key=lambda card_id: (-fused[card_id], card_id))[:pool]
        said = {card_id: card.synthesis for card_id, card in cards.items()}
        said |= await self._cards.syntheses(user_key, [card_id for card_id in best if card_id not in said])
        wanted = self.tuning.informative_words
        for card_id in best:
            text = said.get(card_id, "").strip()
            if text.endswith("?"):
                words = 0
            elif text.count(" ") >= LONG_WORDS * wanted:
                continue  # a long memory tells something: spare the costly reading of its names
            else:
                words = len({w for w in content_words(without_names(text, set(names(text))))
                             if len(w) >= MIN_CONTENT_LETTERS})
            fused[card_id] *= 1.0 - self.tuning.empty_cut * max(0.0, 1.0 - words / wanted)

    def _age_factor(self, card: Card, now: datetime) -> float:
        age_days = max((now - card.ended_at).total_seconds() / 86400.0, 0.0)
        decay = 0.5 ** (age_days / self.tuning.age_half_life_days)
        return 1.0 - self.tuning.age_strength * (1.0 - decay)
