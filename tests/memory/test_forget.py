"""Forget is selective and verifiable: the files are scanned for the forgotten text."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.config import Settings
from bot.core.approvals import ApprovalOutcome
from bot.core.events import CommandMessage, MessageKind, Platform
from bot.scheduler import Scheduler
from memory.consolidation import PassOutcome
from memory.db import Database
from memory.diary import DiaryEntry, DiaryStatus
from memory.forget import ForgetKind, ForgetTarget, Verification, parse_target
from memory.profile import ProfileSection
from memory.schemas import Mood
from memory.service import MemoryService
from tests.memory.conftest import ANA, BOB, card, consolidation, conversation
from tests.scripted_model import ScriptedModel
from tests.support import build_assistant
from tools.context import ToolContext
from tools.registry import Risk
from tools.skills.memory import MemorySkill, install_memory

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
SECRET = "Zarzamora"


def file_bytes(db: Database) -> bytes:
    main = Path(db.path)
    wal = main.with_name(main.name + "-wal")
    return main.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def vector_present(vector: bytes, data: bytes) -> bool:
    """Any 32-byte piece (a 1.5 KB vector in a chunk blob may straddle overflow pages)."""
    return any(vector[i:i + 32] in data for i in range(0, len(vector) - 31, 64))


async def fill(service: MemoryService, db: Database, model: ScriptedModel,
               bob_says: str = "I bought blackberry jam at the market.") -> dict[str, list[int]]:
    """Ana talks about her secret novel and about her dog; Bob talks about jam."""
    secret_ids = await conversation(db, ANA, START, [
        ("user", f"My secret novel is called {SECRET} and the villain is my boss Ignacio."),
        ("assistant", f"{SECRET} sounds intriguing, your secret is safe."),
    ])
    dog_ids = await conversation(db, ANA, START + timedelta(hours=1), [
        ("user", "My dog Trufa learnt to fetch the newspaper."),
    ])
    model.say(consolidation(
        cards=[card(f"The novel {SECRET}", f"Ana is writing a secret novel, {SECRET}, whose villain is her boss "
                    "Ignacio.", secret_ids, topics=["writing"], facts=[f"Writes the novel {SECRET}"]),
               card("Trufa fetches", "Ana's dog Trufa learnt to fetch the newspaper.", dog_ids)],
        profile={"work": [f"Secretly writing the novel {SECRET}", "Works in marketing"],
                 "people": ["Trufa is her dog"]},
        timeline=[{"message_id": secret_ids[0], "category": "learning", "fact": f"Started the novel {SECRET}"},
                  {"message_id": dog_ids[0], "category": "family", "fact": "Trufa learnt to fetch"}],
    ))
    result = await service.consolidate(ANA.user_key)
    assert result is not None and result.outcome is PassOutcome.WRITTEN
    async with db.transaction() as tx:
        await service.diary.record(tx, ANA.user_key, DiaryEntry(
            date(2026, 3, 1), DiaryStatus.WRITTEN, f"Today I wrote two chapters of {SECRET} in secret.",
            (f"Two chapters of {SECRET}",), (), ("writing",), Mood.GOOD), START)
    bob_ids = await conversation(db, BOB, START, [("user", bob_says)])
    model.say(consolidation(cards=[card("Jam", f"Bob said: {bob_says}", bob_ids)]))
    await service.consolidate(BOB.user_key)
    return {"secret": secret_ids, "dog": dog_ids, "bob": bob_ids}


async def test_forget_topic_removes_everything_and_verifies_the_files(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    ids = await fill(service, db, model)
    secret_card = (await service.recall(ANA.user_key, SECRET))[0].card
    rows = await db.fetchall("SELECT embedding FROM memory_cards_vec WHERE card_id = ?", (secret_card.id,))
    vector_bytes = bytes(rows[0]["embedding"])
    names = await db.fetchall("SELECT name FROM memory_card_names WHERE card_id = ?", (secret_card.id,))
    assert {"zarzamora", "ignacio"} <= {row["name"] for row in names}  # the links hold the name too
    await service.forgetter.scrub()
    assert SECRET.encode() in file_bytes(db) and vector_present(vector_bytes, file_bytes(db))

    plan = await service.forgetter.plan(ANA.user_key, ForgetTarget(ForgetKind.TOPIC, topic=SECRET.lower()))
    described = plan.describe()
    assert f"“The novel {SECRET}”" in described and "diary day: 2026-03-01" in described
    assert "Trufa" not in described  # the dog stays
    assert {m.id for m in plan.messages} == set(ids["secret"])
    report = await service.forgetter.execute(plan)
    assert report.verification is Verification.VERIFIED_GONE, report.render()
    assert "Verified gone" in report.render()

    # Ana's memory no longer holds it anywhere; her other memories and Bob's are intact.
    assert await service.recall(ANA.user_key, SECRET) == [] or all(
        SECRET not in hit.card.body for hit in await service.recall(ANA.user_key, SECRET))
    assert (await service.recall(ANA.user_key, "dog fetch"))[0].card.title == "Trufa fetches"
    assert [f.fact for f in await service.timeline.for_user(ANA.user_key)] == ["Trufa learnt to fetch"]
    assert (await service.profile.get(ANA.user_key)).sections[ProfileSection.WORK] == ("Works in marketing",)
    assert await service.diary.get(ANA.user_key, date(2026, 3, 1)) is None
    assert [m.id for m in await service.messages_of(ANA.user_key)] == ids["dog"]
    assert (await service.recall(BOB.user_key, "jam"))[0].card.title == "Jam"
    # The vector bytes of the forgotten card are gone from the file too, and so are its name links
    # (stored lower-cased: the scan looks for that form as well).
    assert not vector_present(vector_bytes, file_bytes(db))
    assert SECRET.lower().encode() not in file_bytes(db) and b"ignacio" not in file_bytes(db)
    assert await db.fetchall("SELECT 1 FROM memory_card_names WHERE card_id = ?", (secret_card.id,)) == []


async def test_forget_topic_reports_what_remains(service: MemoryService, db: Database, model: ScriptedModel) -> None:
    """Bob's card also says Zarzamora: scanning for the word finds it and says so honestly."""
    await fill(service, db, model, bob_says=f"I bought {SECRET} jam at the market.")
    report = await service.forgetter.execute(
        await service.forgetter.plan(ANA.user_key, ForgetTarget(ForgetKind.TOPIC, topic=SECRET)))
    # The topic word is still in the file because Bob's memory holds it: not claimed gone.
    assert report.verification is Verification.REMAINS
    assert [r.text for r in report.remnants] == [SECRET]
    assert "NOT verified" in report.render()


@pytest.mark.parametrize("kind", ["card", "fact", "rule", "diary"])
async def test_forget_single_items(service: MemoryService, db: Database, model: ScriptedModel, kind: str) -> None:
    ids = await fill(service, db, model)
    cards = {c.title: c for c in await service.cards.for_user(ANA.user_key)}
    facts = {f.fact: f for f in await service.timeline.for_user(ANA.user_key)}
    target = {
        "card": f"card {cards['Trufa fetches'].id}",
        "fact": f"fact {facts['Trufa learnt to fetch'].id}",
        "rule": "rule people 1",
        "diary": "diary 2026-03-01",
    }[kind]
    plan = await service.forgetter.plan(ANA.user_key, parse_target(target))
    assert not plan.empty
    report = await service.forgetter.execute(plan)
    assert report.verification is Verification.VERIFIED_GONE, report.render()
    data = file_bytes(db)
    if kind in ("card", "fact"):
        assert b"fetch the newspaper" not in data  # the source message (the echo) went too
        assert [m.id for m in await service.messages_of(ANA.user_key)] == ids["secret"]
    if kind in ("card", "fact"):
        # The echo: the card and the fact made from the same message go together.
        assert {c.title for c in plan.cards} == {"Trufa fetches"}
        assert {f.fact for f in plan.facts} == {"Trufa learnt to fetch"}
        assert b"learnt to fetch" not in data
        assert [c.title for c in await service.cards.for_user(ANA.user_key)] == [f"The novel {SECRET}"]
    if kind == "rule":
        assert b"Trufa is her dog" not in data
        assert ProfileSection.PEOPLE not in (await service.profile.get(ANA.user_key)).sections
    if kind == "diary":
        assert b"wrote two chapters" not in data
    # The other user's memory is untouched whatever Ana forgets.
    assert len(await service.cards.for_user(BOB.user_key)) == 1


async def test_forget_cannot_reach_another_users_items(service: MemoryService, db: Database,
                                                       model: ScriptedModel) -> None:
    await fill(service, db, model)
    bob_card = (await service.cards.for_user(BOB.user_key))[0]
    plan = await service.forgetter.plan(ANA.user_key, ForgetTarget(ForgetKind.CARD, card_id=bob_card.id))
    assert plan.empty
    assert await service.cards.get(BOB.user_key, bob_card.id) is not None


async def test_forget_tool_is_destructive_and_its_approval_lists_the_items(
        service: MemoryService, db: Database, model: ScriptedModel, clock: ManualClock, settings: Settings) -> None:
    from memory.locations import LocationStore

    await fill(service, db, model)
    skill = MemorySkill(service)
    tools = {bound.name: bound for bound in skill.tools()}
    assert tools["forget"].spec.risk is Risk.DESTRUCTIVE
    ctx = ToolContext(chat=ANA, clock=clock, timezone=settings.core.zone, locations=LocationStore(db),
                      location_max_age=timedelta(hours=1))
    preview = await tools["forget_preview"].invoke(tools["forget_preview"].parse({"what": "Trufa"}), ctx)
    plan_id = preview.rsplit("plan_id: ", 1)[1].split()[0]
    args = tools["forget"].parse({"plan_id": plan_id})
    description = tools["forget"].describe(args)
    assert "Trufa fetches" in description and "Trufa learnt to fetch" in description
    bob_ctx = ToolContext(chat=BOB, clock=clock, timezone=settings.core.zone, locations=LocationStore(db),
                          location_max_age=timedelta(hours=1))
    from bot.errors import ToolError

    with pytest.raises(ToolError):  # a plan made for Ana cannot be run in Bob's turn
        await tools["forget"].invoke(args, bob_ctx)
    result = await tools["forget"].invoke(args, ctx)
    assert "Verified gone" in result
    assert b"Trufa" not in file_bytes(db)


async def test_forget_command_waits_for_approval_and_shows_what_goes(
        settings: Settings, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    from tests.support import RecordingMessenger

    messenger = RecordingMessenger(platform=Platform.TELEGRAM, auto_decide=False)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    service = await install_memory(assistant, Scheduler(db, clock), settings)
    await assistant.chats.seen(ANA, clock.now())
    await fill(service, db, model)
    assert "memory" in assistant.deps.registry.skills and "forget" in assistant.commands

    await assistant.handle(CommandMessage(ANA, "forget", "Trufa"))
    assert "Trufa fetches" in messenger.approvals[-1].description
    assert messenger.outcomes[-1][1] is ApprovalOutcome.DENIED
    assert "Not forgotten" in messenger.texts[-1]
    assert b"Trufa" in file_bytes(db)

    messenger.auto_decide = True
    await assistant.handle(CommandMessage(ANA, "forget", "Trufa"))
    assert messenger.outcomes[-1][1] is ApprovalOutcome.APPROVED
    assert "Verified gone" in messenger.texts[-1] and messenger.sent[-1][1].kind is MessageKind.NOTICE
    assert b"Trufa" not in file_bytes(db)

    await assistant.handle(CommandMessage(ANA, "forget", ""))
    assert messenger.texts[-1].startswith("Usage: /forget")


async def test_export_and_cli(service: MemoryService, db: Database, model: ScriptedModel, tmp_path: Path) -> None:
    from memory.export import export_user

    await fill(service, db, model)
    exported = await export_user(service, ANA.user_key)
    assert "### Card" in exported.markdown and "Trufa is her dog" in exported.markdown
    data = json.loads(exported.json)
    assert {c["title"] for c in data["cards"]} == {f"The novel {SECRET}", "Trufa fetches"}
    assert all("jam" not in m["content"] for m in data["messages"])
    assert data["diary"][0]["mood"] == "good"


async def test_command_line_export_and_forget(service: MemoryService, db: Database, model: ScriptedModel,
                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import asyncio

    from bot.core.events import AttachmentKind
    from memory import cli

    await fill(service, db, model)
    photo = await service.attachments.add(ANA, AttachmentKind.PHOTO, "../../etc/passwd", "image/jpeg", b"\xff\xd8jpeg",
                                          START)
    await service.attachments.add(BOB, AttachmentKind.PHOTO, "bob.jpg", "image/jpeg", b"bob's", START)
    await db.close()  # the command line opens the file itself
    monkeypatch.setenv("DATABASE_PATH", str(db.path))
    monkeypatch.setenv("MEMORY_EMBEDDER", "local")
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))

    def run(*argv: str) -> int:
        args = parser.parse_args(list(argv))
        return int(args.handler(args))

    out = tmp_path / "export"
    assert await asyncio.to_thread(run, "memory", "export", "--user", ANA.user_key, "--out", str(out)) == 0
    markdown = (out / "memory-telegram_100.md").read_text(encoding="utf-8")
    assert "Trufa fetches" in markdown and "jam" not in markdown
    exported = json.loads((out / "memory-telegram_100.json").read_text(encoding="utf-8"))
    assert exported["user"] == ANA.user_key
    # The photos and files come too, as they arrived, under names that stay inside the folder.
    [listed] = exported["files"]
    assert listed["id"] == photo and listed["saved_as"] == f"{photo}-_.._etc_passwd"
    assert [p.name for p in (out / "files-telegram_100").iterdir()] == [listed["saved_as"]]
    assert (out / "files-telegram_100" / listed["saved_as"]).read_bytes() == b"\xff\xd8jpeg"
    code = await asyncio.to_thread(run, "memory", "forget", "--user", ANA.user_key, "--yes", "Trufa")
    assert code == 0
    assert b"Trufa" not in file_bytes(db)
    assert await asyncio.to_thread(run, "memory", "forget", "--user", ANA.user_key, "--yes", "card", "x") == 2


async def test_forgetting_a_card_of_a_user_with_vector_cells_leaves_no_trace_of_it_in_them(
        service: MemoryService, db: Database, model: ScriptedModel) -> None:
    service.vectors.cells_from, service.vectors.cell_count = 2, 2  # cells even for a small memory
    await fill(service, db, model)
    assert await service.vectors.cells_of(ANA.user_key) is not None  # made by the consolidation pass
    secret_card = (await service.recall(ANA.user_key, SECRET))[0].card
    cell = (await db.fetchone("SELECT cell FROM memory_cards_vec WHERE card_id = ?", (secret_card.id,)))["cell"]
    sums = {row["cell"]: bytes(row["centroid"]) for row in await db.fetchall(
        "SELECT cell, centroid FROM memory_vec_cells WHERE user_key = ?", (ANA.user_key,))}
    assert cell in sums
    report = await service.forgetter.execute(
        await service.forgetter.plan(ANA.user_key, ForgetTarget(ForgetKind.TOPIC, topic=SECRET.lower())))
    assert report.verification is Verification.VERIFIED_GONE, report.render()
    data = file_bytes(db)
    assert not vector_present(sums[cell], data)  # the sum that held its vector is gone from the file
    left = {row["cell"]: row["members"] for row in await db.fetchall(
        "SELECT cell, members FROM memory_vec_cells WHERE user_key = ?", (ANA.user_key,))}
    assert sum(left.values()) == len(await service.cards.for_user(ANA.user_key))
    assert (await service.recall(ANA.user_key, "dog fetch"))[0].card.title == "Trufa fetches"


async def test_forgetting_reaches_a_turn_parked_on_an_approval(
        settings: Settings, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    from bot.core.parking import Continuation, ParkedTurns
    from tests.support import RecordingMessenger

    messenger = RecordingMessenger(platform=Platform.TELEGRAM, auto_decide=True)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    service = await install_memory(assistant, Scheduler(db, clock), settings)
    await assistant.chats.seen(ANA, clock.now())
    await fill(service, db, model)
    turn_id = await assistant.turns.start(ANA, clock.now())
    parked = ParkedTurns(db)
    state = json.dumps({"user_text": "delete the note about Trufa, mi perrita",
                        "messages": [{"role": "user", "content": "Trufa ya sabe traer el periódico"}]})
    async with db.transaction() as tx:
        await parked.park(Continuation(turn_id, ANA, 1, "approval-1", state), clock.now(), tx)

    await assistant.handle(CommandMessage(ANA, "forget", "Trufa"))
    assert "Verified gone" in messenger.texts[-1]
    assert b"Trufa" not in file_bytes(db)
    kept = await parked.waiting_for("approval-1")
    assert kept is not None  # the turn still resumes, with the words gone
    assert "mi perrita" in kept.state and "traer el periódico" in kept.state and "Trufa" not in kept.state


async def test_files_sent_in_are_forgotten_with_their_topic_or_by_number(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    """A file's read text matches a topic; `/forget photo N` takes one; the bytes leave the file."""
    import os

    from bot.core.events import AttachmentKind, AttachmentMessage
    from memory.attachments import AttachmentStore
    from tests.memory.conftest import memory_settings
    from tests.support import RecordingMessenger

    settings = memory_settings(tmp_path, model.base_url, consolidate_tokens=100_000)  # no pass mid-test
    messenger = RecordingMessenger(platform=Platform.TELEGRAM, auto_decide=True)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    await install_memory(assistant, Scheduler(db, clock), settings)
    await assistant.chats.seen(ANA, clock.now())
    report = f"Borrador del capítulo tres de {SECRET}: el jefe Ignacio descubre el manuscrito.".encode()
    photo = os.urandom(4096)  # stands for a JPEG: no text in it to match
    model.respond("Es un borrador.")
    await assistant.handle(AttachmentMessage(ANA, AttachmentKind.DOCUMENT, report, "capitulo3.txt", "text/plain",
                                             caption="¿qué te parece?"))
    model.respond("Vale.")
    await assistant.handle(AttachmentMessage(ANA, AttachmentKind.DOCUMENT, b"Lista de la compra: leche y pan",
                                             "lista.txt", "text/plain"))
    model.respond("Bonito.")
    await assistant.handle(AttachmentMessage(ANA, AttachmentKind.PHOTO, photo, "photo.jpg", "image/jpeg",
                                             caption="mira el Quetzal"))
    bob_file = f"Bob's copy: {SECRET} jam labels".encode()
    model.respond("Ok.")
    await assistant.chats.seen(BOB, clock.now())
    await assistant.handle(AttachmentMessage(BOB, AttachmentKind.DOCUMENT, bob_file, "labels.txt", "text/plain"))
    store = AttachmentStore(db)
    kept = {a.filename: a for a in await store.for_user(ANA.user_key)}
    assert set(kept) == {"capitulo3.txt", "lista.txt", "photo.jpg"}
    assert b"Ignacio descubre" in file_bytes(db) and photo[:64] in file_bytes(db)

    await assistant.handle(CommandMessage(ANA, "forget", "ignacio"))
    assert "file: #" in messenger.approvals[-1].description and "capitulo3.txt" in messenger.approvals[-1].description
    assert "Verified gone" in messenger.texts[-1], messenger.texts[-1]
    assert "1 files" in messenger.texts[-1]
    left = {a.filename for a in await store.for_user(ANA.user_key)}
    assert left == {"lista.txt", "photo.jpg"}
    assert b"Ignacio descubre" not in file_bytes(db) and b"capitulo3" not in file_bytes(db)
    assert b"Quetzal" in file_bytes(db)

    await assistant.handle(CommandMessage(ANA, "forget", f"photo {kept['photo.jpg'].id}"))
    assert "photo.jpg" in messenger.approvals[-1].description
    assert "Verified gone" in messenger.texts[-1], messenger.texts[-1]
    assert {a.filename for a in await store.for_user(ANA.user_key)} == {"lista.txt"}
    assert photo[:64] not in file_bytes(db) and photo[2000:2064] not in file_bytes(db)
    assert b"Quetzal" not in file_bytes(db)  # the message it came with went too
    # Bob's file is his: Ana's forgetting neither lists nor touches it.
    assert [a.filename for a in await store.for_user(BOB.user_key)] == ["labels.txt"]
    assert await store.data(BOB.user_key, (await store.for_user(BOB.user_key))[0].id) == bob_file


async def test_a_file_stored_again_for_the_same_inbox_item_is_the_same_attachment(db: Database) -> None:
    """A turn re-run after a crash finds what it stored the first time: one copy, one number."""
    from bot.core.events import AttachmentKind
    from memory.attachments import AttachmentStore

    store = AttachmentStore(db)
    first = await store.add(ANA, AttachmentKind.PHOTO, "a.jpg", "image/jpeg", b"jpeg", START, inbox_id=7)
    again = await store.add(ANA, AttachmentKind.PHOTO, "a.jpg", "image/jpeg", b"jpeg", START, inbox_id=7)
    other = await store.add(ANA, AttachmentKind.PHOTO, "a.jpg", "image/jpeg", b"jpeg", START, inbox_id=8)
    assert first == again != other
    assert [a.id for a in await store.for_user(ANA.user_key)] == [first, other]


@pytest.mark.parametrize(("text", "attachment_id"), [("file 3", 3), ("photo #12", 12), ("attachment 7", 7)])
def test_a_file_is_named_by_its_number(text: str, attachment_id: int) -> None:
    target = parse_target(text)
    assert target.kind is ForgetKind.FILE and target.attachment_id == attachment_id


async def test_forgetting_a_file_that_is_not_there_or_not_yours_plans_nothing(
        service: MemoryService, db: Database) -> None:
    from bot.core.events import AttachmentKind
    from memory.forget import TargetError

    bobs = await service.attachments.add(BOB, AttachmentKind.PHOTO, "b.jpg", "image/jpeg", b"bob", START)
    for missing in (bobs, bobs + 100):
        plan = await service.forgetter.plan(ANA.user_key, parse_target(f"file {missing}"))
        assert plan.empty and "Nothing" in plan.describe()
    with pytest.raises(TargetError, match="expected card N"):
        parse_target("file abc")
    assert await service.attachments.data(BOB.user_key, bobs) == b"bob"
