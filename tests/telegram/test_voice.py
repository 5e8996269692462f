"""Voice notes: downloaded through getFile, transcribed by the core, then answered."""

from __future__ import annotations

import io
from pathlib import Path

import av
import numpy as np

from bot.clock import ManualClock
from bot.core import replies
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.conftest import Harness, make_harness
from tests.telegram.fake_bot_api import FakeBotApi
from tests.telegram.updates import OWNER_ID


def opus_note(seconds: float = 1.0) -> bytes:
    """A real OGG/Opus voice note: a short tone."""
    rate = 48_000
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="ogg") as container:
        stream = container.add_stream("libopus", rate=rate)
        stream.layout = "mono"  # type: ignore[union-attr]
        t = np.arange(int(rate * seconds)) / rate
        samples = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="flt", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):  # type: ignore[union-attr]
            container.mux(packet)
        for packet in stream.encode(None):  # type: ignore[union-attr]
            container.mux(packet)
    return buffer.getvalue()


async def test_a_voice_note_is_transcribed_and_answered(tg: Harness) -> None:
    audio = opus_note()
    assert audio[:4] == b"OggS"
    file_id = tg.api.add_file(audio)
    tg.model.transcript("¿me oyes bien?")
    tg.model.respond("Sí, te oigo perfectamente.")
    await tg.push(lambda mid: updates.voice(OWNER_ID, mid, tg.clock.now(), file_id, len(audio)))

    texts = await tg.replies(2)
    assert texts == ["🎙️ ¿me oyes bien?", "Sí, te oigo perfectamente."]
    heard = tg.api.calls_to("sendMessage")[0].params
    # The microphone is U+1F399 U+FE0F: three UTF-16 units, then a space.
    assert heard["entities"] == [{"type": "italic", "offset": 4, "length": 14}]
    assert tg.model.transcription_requests == [{"model": "scripted-whisper", "bytes": len(audio)}]
    assert tg.api.calls_to("getFile")[0].params["file_id"] == file_id
    assert len(tg.api.calls_to("download")) == 1
    assert tg.model.requests[0]["messages"][-1]["content"].endswith("¿me oyes bien?")
    stored = [r["content"] for r in await tg.db.fetchall("SELECT content FROM messages ORDER BY id")]
    assert stored[0] == "¿me oyes bien?"


async def test_without_a_transcription_model_the_reply_says_so(
    tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock
) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, llm={"transcription_model": None})
    try:
        audio = opus_note(0.3)
        file_id = api.add_file(audio)
        await tg.push(lambda mid: updates.voice(OWNER_ID, mid, clock.now(), file_id, len(audio)))
        [text] = await tg.replies(1)
        assert text == replies.no_transcription("en") or text == replies.no_transcription("es")
        assert model.transcription_requests == [] and model.requests == []
    finally:
        await tg.stack.stop()


async def test_an_oversized_voice_note_is_not_downloaded(
    tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock
) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, max_voice_bytes=2048)
    try:
        audio = opus_note()
        file_id = api.add_file(audio)
        await tg.push(lambda mid: updates.voice(OWNER_ID, mid, clock.now(), file_id, len(audio)))
        [text] = await tg.replies(1)
        assert "too large" in text and f"{len(audio):,}" in text
        assert api.calls_to("getFile") == [] and model.transcription_requests == []
    finally:
        await tg.stack.stop()
