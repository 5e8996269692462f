"""The email skill against a real Dovecot (IMAP) and a real SMTP server on 127.0.0.1."""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from pydantic import SecretStr

from bot.clock import ManualClock
from bot.config import EmailSettings
from bot.errors import ToolArgumentsError, ToolError
from memory.db import Database
from tests.skills.email.mailserver import MailAccount, MailServer
from tests.skills.email.toolcall import bound, call, tool_context
from tools.policy import Policy
from tools.registry import Decision
from tools.skills.email import SNIPPET_MAX_BYTES, EmailSkill


def _message(subject: str, body: str, sender: str = "Bob Sender <bob@example.org>", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "owner@localhost"
    message["Subject"] = subject
    message["Date"] = "Mon, 02 Mar 2026 08:30:00 +0000"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message


def _uids(listing: str) -> list[int]:
    return [int(line.split()[2]) for line in listing.splitlines() if line.startswith("- uid ")]


def _text(message: EmailMessage) -> str:
    return str(message.get_content()).replace("\r\n", "\n").strip()


def _parse(raw: bytes) -> EmailMessage:
    parsed = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed


async def test_send_then_unread_then_read_then_marked_read(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)
    assert await call(skill, "list_unread_email", ctx) == "No unread emails."

    result = await call(skill, "send_email", ctx, to=[mail_account.address], subject="Plan para el sábado",
                        body="Hola,\n¿quedamos a las 10 en la plaza?\nUn abrazo")
    assert result.startswith(f"Sent to {mail_account.address}")

    sent = mail_server.sent_by(mail_account.address)
    assert len(sent) == 1 and sent[0].rcpt_tos == (mail_account.address,)
    wire = _parse(sent[0].content)
    assert wire["Subject"] == "Plan para el sábado"
    assert wire["From"] == mail_account.address
    assert _text(wire) == "Hola,\n¿quedamos a las 10 en la plaza?\nUn abrazo"

    listing = await call(skill, "list_unread_email", ctx)
    assert listing.startswith("1 unread email(s)")
    assert "subject: Plan para el sábado" in listing and "¿quedamos a las 10 en la plaza?" in listing
    assert "Mon 2026-03-02 09:00" in listing  # the ManualClock's 08:00 UTC, shown in Madrid time
    [uid] = _uids(listing)

    reading = await call(skill, "read_email", ctx, uid=uid)
    assert "(unread)" in reading and f"From: {mail_account.address}" in reading
    assert "Un abrazo" in reading
    # Reading never marks as read: the listing still has it.
    assert _uids(await call(skill, "list_unread_email", ctx)) == [uid]

    assert await call(skill, "mark_email_read", ctx, uids=[uid]) == f"Marked as read: {uid}."
    assert await call(skill, "list_unread_email", ctx) == "No unread emails."
    assert "(read)" in await call(skill, "read_email", ctx, uid=uid)


async def test_html_mail_becomes_text_and_attachments_are_listed_not_opened(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    message = _message("Factura", "unused")
    message.set_content("<html><head><style>.x{}</style><script>steal()</script></head><body>"
                        "<p>Hola <b>Ana</b>,</p><p>Paga <a href='https://pay.example.net/x'>aquí</a>.</p>"
                        "</body></html>", subtype="html")
    message.add_attachment(b"%PDF-1.4 SECRET-ATTACHMENT-TEXT", maintype="application", subtype="pdf",
                           filename="factura.pdf")
    mail_server.deliver(mail_account.user, message)
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)

    [uid] = _uids(listing := await call(skill, "list_unread_email", ctx))
    assert "1 attachment(s)" in listing
    reading = await call(skill, "read_email", ctx, uid=uid)
    assert "Hola Ana," in reading and "Paga aquí <https://pay.example.net/x>." in reading
    assert "<p>" not in reading and "steal()" not in reading
    assert "Attachments (not opened): factura.pdf (application/pdf, 31 B)" in reading
    assert "SECRET-ATTACHMENT-TEXT" not in reading


async def test_reply_keeps_the_thread_and_flags_the_original(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    mail_server.deliver(mail_account.user, _message(
        "Cena", "¿Vienes el viernes?", Message_ID="<orig-2@example.org>", References="<root-1@example.org>"))
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)
    [uid] = _uids(await call(skill, "list_unread_email", ctx))

    result = await call(skill, "reply_email", ctx, uid=uid, to=["bob@example.org"], subject="Re: Cena",
                        body="¡Sí, allí estaré!", cc=["carol@example.org"])
    assert result.startswith("Sent to bob@example.org, carol@example.org")

    [sent] = mail_server.sent_by(mail_account.address)
    assert sorted(sent.rcpt_tos) == ["bob@example.org", "carol@example.org"]
    wire = _parse(sent.content)
    assert wire["In-Reply-To"] == "<orig-2@example.org>"
    assert wire["References"] == "<root-1@example.org> <orig-2@example.org>"
    assert wire["Subject"] == "Re: Cena" and wire["Cc"] == "carol@example.org"
    assert _text(wire) == "¡Sí, allí estaré!"
    assert any(path.name.endswith("RS") or ":2,R" in path.name for path in mail_server.maildir_files(mail_account.user))


async def test_reply_to_a_message_without_message_id_says_it_is_not_threaded(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    message = _message("Sin id", "texto")
    del message["Message-ID"]
    mail_server.deliver(mail_account.user, message.as_bytes().replace(b"Message-ID", b"X-Nothing"))
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)
    [uid] = _uids(await call(skill, "list_unread_email", ctx))
    result = await call(skill, "reply_email", ctx, uid=uid, to=["bob@example.org"], subject="Re: Sin id", body="ok")
    assert "not threaded" in result
    [sent] = mail_server.sent_by(mail_account.address)
    assert _parse(sent.content)["In-Reply-To"] is None


async def test_large_and_truncated_messages(
    mail_server: MailServer, db: Database, clock: ManualClock
) -> None:
    account = mail_server.new_account(max_message_bytes=200_000)
    big_text = "start of a long story. " + ("lorem ipsum " * 60_000) + "THE-END-MARKER"
    mail_server.deliver(account.user, _message("Novela", big_text))
    skill = EmailSkill(account.settings)
    ctx = tool_context(db, clock)
    listing = await call(skill, "list_unread_email", ctx)
    assert len(big_text) > SNIPPET_MAX_BYTES and "(large message, " in listing
    [uid] = _uids(listing)
    reading = await call(skill, "read_email", ctx, uid=uid)
    assert "start of a long story." in reading
    assert "only its start was read" in reading and "THE-END-MARKER" not in reading


async def test_limit_shows_the_newest(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    for number in range(5):
        mail_server.deliver(mail_account.user, _message(f"Mensaje {number}", f"cuerpo {number}"))
    skill = EmailSkill(mail_account.settings)
    listing = await call(skill, "list_unread_email", tool_context(db, clock), limit=2)
    assert listing.startswith("5 unread email(s); showing 2")
    assert "Mensaje 4" in listing and "Mensaje 3" in listing and "Mensaje 2" not in listing


async def test_mark_read_reports_missing_uids(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    mail_server.deliver(mail_account.user, _message("Uno", "1"))
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)
    [uid] = _uids(await call(skill, "list_unread_email", ctx))
    assert await call(skill, "mark_email_read", ctx, uids=[uid, 999]) == f"Marked as read: {uid}. Not found: 999."
    with pytest.raises(ToolError, match="no email with uid 998"):
        await call(skill, "mark_email_read", ctx, uids=[998])
    with pytest.raises(ToolError, match="no email with uid 4242"):
        await call(skill, "read_email", ctx, uid=4242)


async def test_bad_addresses_and_subjects_send_nothing(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    skill = EmailSkill(mail_account.settings)
    ctx = tool_context(db, clock)
    with pytest.raises(ToolError, match="not a plain email address"):
        await call(skill, "send_email", ctx, to=["a@example.org\nBcc: evil@example.net"], subject="x", body="y")
    with pytest.raises(ToolError, match="not a plain email address"):
        await call(skill, "send_email", ctx, to=["Eve <eve@example.net>"], subject="x", body="y")
    with pytest.raises(ToolError, match="single line"):
        await call(skill, "send_email", ctx, to=["a@example.org"], subject="x\r\nBcc: evil@example.net", body="y")
    assert mail_server.sent_by(mail_account.address) == []


async def test_wrong_password_and_unreachable_server_are_clear_errors(
    mail_server: MailServer, mail_account: MailAccount, db: Database, clock: ManualClock
) -> None:
    ctx = tool_context(db, clock)
    wrong = EmailSkill(mail_account.settings.model_copy(update={"password": SecretStr("not-the-password-xyz")}))
    with pytest.raises(ToolError, match="refused the login; check EMAIL_USERNAME") as refused:
        await call(wrong, "list_unread_email", ctx)
    assert "not-the-password-xyz" not in str(refused.value)
    with pytest.raises(ToolError, match="refused the login") as smtp_refused:
        await call(wrong, "send_email", ctx, to=["a@example.org"], subject="x", body="y")
    assert "not-the-password-xyz" not in str(smtp_refused.value)
    assert mail_server.sent_by(mail_account.address) == []

    from tests.skills.email.mailserver import free_port

    closed = EmailSkill(mail_account.settings.model_copy(update={"imap_port": free_port()}))
    with pytest.raises(ToolError, match="could not talk to the mail server"):
        await call(closed, "list_unread_email", ctx)


def test_tool_flags_and_the_approval_shows_the_message_exactly() -> None:
    skill = EmailSkill(EmailSettings(_env_file=None, imap_host="127.0.0.1", username="u",  # type: ignore[call-arg]
                                     password=SecretStr("p"), smtp_host="127.0.0.1", from_address="u@localhost"))
    policy = Policy()
    for name in ("list_unread_email", "read_email"):
        assert bound(skill, name).spec.untrusted_output, name
        assert not bound(skill, name).spec.sends_data_out
    for name in ("send_email", "reply_email"):
        tool = bound(skill, name)
        assert tool.spec.sends_data_out
        args = tool.parse({"uid": 7, "to": ["ana@example.org"], "cc": ["luis@example.org"], "subject": "Hola",
                           "body": "Línea 1\nLínea 2"} if name == "reply_email" else
                          {"to": ["ana@example.org"], "cc": ["luis@example.org"], "subject": "Hola",
                           "body": "Línea 1\nLínea 2"})
        # Always asked, untrusted content seen or not.
        assert policy.decide(tool, args) is Decision.REQUIRE_APPROVAL
        assert policy.decide(tool, args, untrusted_seen=True) is Decision.REQUIRE_APPROVAL
        shown = tool.describe(args)
        exact = "To: ana@example.org\nCc: luis@example.org\nSubject: Hola\nBody:\n-----\nLínea 1\nLínea 2\n-----"
        assert exact in shown
    send = bound(skill, "send_email")
    # Everything must fit in one approval message: over-long messages are refused before any approval.
    for too_big in ({"body": "x" * 3001}, {"to": [f"p{n}@example.org" for n in range(11)]}, {"subject": "s" * 201}):
        with pytest.raises(ToolArgumentsError):
            send.parse({"to": ["a@b.org"], "subject": "s", "body": "b", **too_big})
    assert "reply to email uid 7" in bound(skill, "reply_email").describe(
        bound(skill, "reply_email").parse({"uid": 7, "to": ["a@b.org"], "subject": "s", "body": "b"}))
    assert Policy(overrides={"send_email": Decision.ALLOW}).decide(
        bound(skill, "send_email"),
        bound(skill, "send_email").parse({"to": ["a@b.org"], "subject": "s", "body": "b"}),
    ) is Decision.REQUIRE_APPROVAL


async def test_unconfigured_email_says_what_is_missing(db: Database, clock: ManualClock) -> None:
    skill = EmailSkill(EmailSettings(_env_file=None))  # type: ignore[call-arg]
    with pytest.raises(ToolError, match="EMAIL_IMAP_HOST"):
        await call(skill, "list_unread_email", tool_context(db, clock))
