"""Photos and files from the phone: stored whole, read when they can be, refused with the limit named."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from bot.adapters.telegram import FILE_TOO_BIG
from bot.clock import ManualClock
from bot.config import Settings
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.conftest import Harness, make_harness
from tests.telegram.fake_bot_api import FakeBotApi, transcript
from tests.telegram.updates import OWNER_ID
from tools.registry import Skill
from tools.skills.notes import NotesSkill as RealNotes


class Vault(RealNotes):
    id = "vault"  # the harness already has a small "notes" skill


def _vault(settings: Settings) -> tuple[Skill, ...]:
    return (Vault(settings.notes),)


def _jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


def _pdf(text: str) -> bytes:
    """A small valid one-page PDF whose page shows `text` (built by hand, offsets computed)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


async def _harness(tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock,
                   vision: bool) -> Harness:
    return await make_harness(tmp_path, model, api, db, clock, llm={"vision": vision},
                              sections={"notes": {"folder": tmp_path / "vault"}}, extra_skills=_vault)


async def _attachments(tg: Harness) -> list[tuple[str, str, int]]:
    rows = await tg.db.fetchall("SELECT kind, filename, size FROM attachments ORDER BY id")
    return [(row["kind"], row["filename"], int(row["size"])) for row in rows]


async def test_a_photo_question_goes_to_a_vision_model_scaled_down(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await _harness(tmp_path, model, api, db, clock, vision=True)
    try:
        photo = _jpeg(3000, 2000)
        file_id = api.add_file(photo, "photos/file.jpg")
        model.respond("Es una imagen roja, sin texto.")
        await tg.push(lambda mid: updates.photo(OWNER_ID, mid, clock.now(), file_id, len(photo),
                                                caption="¿Qué hay en esta foto?"))
        await tg.replies(1, predicate=lambda t: t.startswith("Es una imagen roja"))
        user = model.requests[0]["messages"][-1]
        parts = {part["type"]: part for part in user["content"]}
        assert "¿Qué hay en esta foto?" in parts["text"]["text"] and "attachment 1" in parts["text"]["text"]
        url = parts["image_url"]["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        shown = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        assert max(shown.size) == tg.settings.core.image_max_side and shown.size[0] > shown.size[1]
        # The original is kept whole, byte for byte.
        kept = await db.fetchone("SELECT kind, size, data FROM attachments")
        assert kept["kind"] == "photo" and bytes(kept["data"]) == photo
        assert [c.params["file_id"] for c in api.calls_to("getFile")] == [file_id]  # the largest size
        print("\n--- a photo question ---\n" + transcript(api.calls))
    finally:
        await tg.stack.stop()


async def test_a_photo_without_a_vision_model_gets_one_line_and_is_kept(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await _harness(tmp_path, model, api, db, clock, vision=False)
    try:
        photo = _jpeg(400, 300)
        file_id = api.add_file(photo, "photos/file.jpg")
        await tg.push(lambda mid: updates.photo(OWNER_ID, mid, clock.now(), file_id, len(photo)))
        line = await tg.replies(1, predicate=lambda t: t.startswith("📷"))
        assert "vision model" in line[0] and "LLM_VISION" in line[0] and "attachment 1" in line[0]
        assert "\n" not in line[0]
        assert model.requests == []  # no caption: nothing to ask the model
        assert await _attachments(tg) == [("photo", f"photo-{_message_id(api)}.jpg", len(photo))]
    finally:
        await tg.stack.stop()


def _message_id(api: FakeBotApi) -> int:
    return int(api.pushed[-1]["message"]["message_id"])


async def test_a_pdf_is_read_as_untrusted_text_and_saved_in_the_notes(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await _harness(tmp_path, model, api, db, clock, vision=False)
    try:
        pdf = _pdf("Invoice 2026-114: total 86.40 EUR, due 15 December")
        file_id = api.add_file(pdf, "documents/file.pdf")
        model.call("notes_save_attachment", attachment_id=1)
        model.respond("Guardado en attachments/factura.pdf. Total: 86.40 EUR, vence el 15 de diciembre.")
        await tg.push(lambda mid: updates.document(OWNER_ID, mid, clock.now(), file_id, "factura.pdf",
                                                   "application/pdf", len(pdf),
                                                   caption="guárdalo en mis notas y dime el total"))
        await tg.replies(1, predicate=lambda t: t.startswith("Guardado en attachments/factura.pdf"))
        user = model.requests[0]["messages"][-1]["content"]
        assert "<untrusted_content>" in user and "Invoice 2026-114: total 86.40 EUR" in user
        assert "factura.pdf" in user and "attachment 1" in user
        saved = tmp_path / "vault" / "attachments" / "factura.pdf"
        assert saved.read_bytes() == pdf
        notice = await tg.replies(1, predicate=lambda t: t.startswith("🔔"))
        assert "Save attachment 1" in notice[0]
        print("\n--- a PDF saved to the notes ---\n" + transcript(api.calls))
    finally:
        await tg.stack.stop()


async def test_bad_files_get_clear_replies_and_nothing_is_stored_wrongly(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await _harness(tmp_path, model, api, db, clock, vision=False)
    try:
        # 50 MB, as Telegram declares it: refused before any download, nothing stored.
        big = 50 * 1024 * 1024
        await tg.push(lambda mid: updates.document(OWNER_ID, mid, clock.now(), "file-big", "video.pdf",
                                                   "application/pdf", big))
        limit = tg.settings.telegram.max_file_bytes
        assert await tg.replies(1, predicate=lambda t: "too large" in t) == [
            FILE_TOO_BIG.format(size=big, limit=limit)]
        assert api.calls_to("getFile") == []

        # A corrupt PDF: kept as sent (nothing lost), with no text, and the reply says why.
        corrupt = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ngarbage"
        file_id = api.add_file(corrupt, "documents/broken.pdf")
        await tg.push(lambda mid: updates.document(OWNER_ID, mid, clock.now(), file_id, "broken.pdf",
                                                   "application/pdf", len(corrupt), caption="resume esto"))
        reply = await tg.replies(1, predicate=lambda t: "broken.pdf" in t)
        assert "damaged" in reply[0] and "attachment 1" in reply[0]
        row = await db.fetchone("SELECT text, read_error, data FROM attachments WHERE id = 1")
        assert row["text"] is None and row["read_error"] and bytes(row["data"]) == corrupt

        # A format it cannot read: refused by name, not stored.
        file_id = api.add_file(b"PK\x03\x04 not really", "documents/song.mp3")
        await tg.push(lambda mid: updates.document(OWNER_ID, mid, clock.now(), file_id, "song.mp3",
                                                   "audio/mpeg", 20))
        reply = await tg.replies(1, predicate=lambda t: "song.mp3" in t)
        assert "PDF" in reply[0] and "did not keep" in reply[0]
        assert [name for _, name, _ in await _attachments(tg)] == ["broken.pdf"]
        assert model.requests == []  # none of these reached the model
    finally:
        await tg.stack.stop()
