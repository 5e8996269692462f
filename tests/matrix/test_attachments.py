"""Photos and files sent as Element sends them (encrypted uploads in an encrypted room): what
the core received, and what the person saw."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

from bot.adapters.matrix import FILE_TOO_BIG, MEDIA_UNREADABLE
from tests.matrix.conftest import MatrixWorld
from tests.matrix.human import Human
from tests.telegram.test_attachments import _jpeg, _pdf


async def _kept(world: MatrixWorld) -> list[tuple[str, str, str, bytes]]:
    rows = await world.db.fetchall("SELECT kind, filename, mime_type, data FROM attachments ORDER BY id")
    return [(row["kind"], row["filename"], row["mime_type"], bytes(row["data"])) for row in rows]


async def _send_media(person: Human, room: str, msgtype: str, data: bytes, mime: str, filename: str, *,
                      encrypt: bool, caption: str | None = None) -> dict[str, Any]:
    """Upload and send as Element does: `body` is the caption when `filename` differs."""
    media = await person.upload(data, mime, encrypt=encrypt, filename=filename)
    content: dict[str, Any] = {"msgtype": msgtype, "body": caption or filename, "filename": filename,
                               "info": {"mimetype": mime, "size": len(data)}, **media}
    await person.send(room, "m.room.message", content)
    return content


async def test_an_encrypted_photo_and_pdf_reach_the_core_decrypted(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id], llm={"vision": True})
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    photo = _jpeg(2400, 1600)
    world.model.respond("Es una imagen roja, sin texto.")
    mark = alice.mark
    content = await _send_media(alice, room, "m.image", photo, "image/jpeg", "playa.jpg", encrypt=True,
                                caption="¿Qué hay en esta foto?")
    assert "url" not in content and set(content["file"]) >= {"url", "key", "iv", "hashes"}
    answer = await alice.message_from(bot.user_id, room, after=mark,
                                      match=lambda s: s.body.startswith("Es una imagen roja"))
    assert answer.decrypted
    user = world.model.requests[-1]["messages"][-1]
    parts = {part["type"]: part for part in user["content"]}
    assert "¿Qué hay en esta foto?" in parts["text"]["text"] and "attachment 1" in parts["text"]["text"]
    url = parts["image_url"]["image_url"]["url"]
    shown = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert max(shown.size) == bot.assistant.deps.settings.core.image_max_side and shown.size[0] > shown.size[1]
    # The core keeps the original, decrypted byte for byte, under the name Element gave it.
    assert await _kept(world) == [("photo", "playa.jpg", "image/jpeg", photo)]
    # The sync stored its URL and keys, not its bytes: the room's worker downloaded it.
    kinds = [row["kind"] for row in await world.db.fetchall("SELECT kind FROM chat_inbox ORDER BY id")]
    assert kinds == ["file_to_fetch"]

    pdf = _pdf("Invoice 2026-114: total 86.40 EUR, due 15 December")
    world.model.respond("El total es 86.40 EUR.")
    mark = alice.mark
    content = await _send_media(alice, room, "m.file", pdf, "application/pdf", "factura.pdf", encrypt=True,
                                caption="¿cuánto es el total?")
    await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body == "El total es 86.40 EUR.")
    said = world.model.requests[-1]["messages"][-1]["content"]
    assert "<untrusted_content>" in said and "Invoice 2026-114: total 86.40 EUR" in said
    assert "¿cuánto es el total?" in said and "factura.pdf" in said and "attachment 2" in said
    assert (await _kept(world))[1] == ("document", "factura.pdf", "application/pdf", pdf)
    # The server only ever held ciphertext: the room's events are encrypted, and so is the upload.
    timeline = await alice.raw_timeline(room)
    assert not any(event["type"] == "m.room.message" and event["sender"] == alice.user_id for event in timeline)
    stored = await alice.client.download(mxc=content["file"]["url"])
    assert isinstance(stored.body, bytes) and len(stored.body) == len(pdf) and b"Invoice" not in stored.body


async def test_without_a_vision_model_a_photo_gets_one_line_and_a_text_file_is_read(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)

    photo = _jpeg(400, 300)
    mark = alice.mark
    content = await _send_media(alice, room, "m.image", photo, "image/jpeg", "gato.jpg", encrypt=False)
    assert "file" not in content and content["url"].startswith("mxc://")
    line = await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body.startswith("📷"))
    assert "vision model" in line.body and "LLM_VISION" in line.body and "attachment 1" in line.body
    assert "\n" not in line.body
    assert world.model.requests == []  # no caption: nothing to ask the model

    text = b"Shopping list: oat milk, lentils, coffee beans.\n"
    world.model.respond("Oat milk, lentils and coffee beans.")
    mark = alice.mark
    await _send_media(alice, room, "m.file", text, "text/plain", "lista.txt", encrypt=False,
                      caption="what is on this list?")
    await alice.message_from(bot.user_id, room, after=mark,
                             match=lambda s: s.body == "Oat milk, lentils and coffee beans.")
    said = world.model.requests[-1]["messages"][-1]["content"]
    assert "<untrusted_content>" in said and "oat milk, lentils, coffee beans" in said
    assert await _kept(world) == [("photo", "gato.jpg", "image/jpeg", photo),
                                  ("document", "lista.txt", "text/plain", text)]


async def test_too_large_and_malformed_files_get_a_clear_answer_and_lose_nothing_else(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    limit = 4096
    bot = await world.bot(allowed=[alice.client.user_id], max_file_bytes=limit)
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)
    replies: list[str] = []

    async def answer_to(content: dict[str, Any], *, starts: str) -> str:
        mark = alice.mark
        await alice.send(room, "m.room.message", content)
        seen = await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body.startswith(starts))
        replies.append(seen.body)
        return seen.body

    # Declared at 50 MB and pointing at media that does not exist: the size alone refuses it
    # (a download would have failed with another answer).
    big = 50 * 1024 * 1024
    declared = {"msgtype": "m.file", "body": "video.pdf", "info": {"mimetype": "application/pdf", "size": big},
                "file": {**(await alice.upload(b"x" * 100, "application/pdf", encrypt=True))["file"],
                         "url": "mxc://localhost/NoSuchMediaHere"}}
    assert await answer_to(declared, starts="That file is too large") == FILE_TOO_BIG.format(size=big, limit=limit)

    # No size declared: refused once the bytes came in, with the same words.
    undeclared = b"%PDF-1.4\n" + b"0" * (limit + 1000)
    media = await alice.upload(undeclared, "application/pdf", encrypt=True, filename="big.pdf")
    sent = {"msgtype": "m.file", "body": "big.pdf", **media}
    # AES-CTR adds no padding: what came in is as long as the file.
    assert await answer_to(sent, starts="That file is too large") == FILE_TOO_BIG.format(
        size=len(undeclared), limit=limit)

    # An encrypted file whose key is missing, and a plain one without a URL.
    good = await alice.upload(b"hello", "text/plain", encrypt=True, filename="a.txt")
    keyless = {"msgtype": "m.file", "body": "a.txt", "file": {k: v for k, v in good["file"].items() if k != "key"}}
    assert await answer_to(keyless, starts="I could not read") == MEDIA_UNREADABLE.format(
        what="file", reason="the message lacks the file's encryption key")
    urlless = {"msgtype": "m.image", "body": "photo.jpg", "info": {"mimetype": "image/jpeg", "size": 10}}
    assert await answer_to(urlless, starts="I could not read") == MEDIA_UNREADABLE.format(
        what="photo", reason="the message has no media URL")
    # Bytes that do not match the hash the event carries are not taken either.
    tampered = {"msgtype": "m.file", "body": "a.txt",
                "file": {**good["file"], "hashes": {"sha256": base64.b64encode(b"\0" * 32).decode().rstrip("=")}}}
    assert "could not be decrypted" in await answer_to(tampered, starts="I could not read")

    # A format the core cannot read: the core says so by name.
    song = await alice.upload(b"ID3\x03\x00 not music", "audio/mpeg", encrypt=True, filename="song.mp3")
    refusal = await answer_to({"msgtype": "m.file", "body": "song.mp3", "info": {"mimetype": "audio/mpeg"},
                               **song}, starts="I can't read")
    assert "song.mp3" in refusal and "did not keep" in refusal

    # None of it reached the model or was stored, and the conversation goes on.
    assert world.model.requests == []
    assert await _kept(world) == []
    world.model.respond("Still here.")
    mark = alice.mark
    await alice.say(room, "are you still there?")
    await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body == "Still here.")
    assert "are you still there?" in str(world.model.requests[-1]["messages"])
    assert all("\n" not in reply for reply in replies)
