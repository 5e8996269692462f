"""The owner's mailbox: read over IMAP (aioimaplib), send over SMTP (aiosmtplib).

Reading never changes flags (BODY.PEEK); marking read is its own tool. Every message
body, sender and subject is third-party text, so the reading tools are
`untrusted_output`. Sending and replying always wait for the owner's approval, and the
approval shows recipients, subject and body exactly as they will go: the tool arguments
are the whole message (threading headers come from the original, nothing else is added).
Attachments are listed, never opened.
"""

from __future__ import annotations

import asyncio
import email.policy
import logging
import re
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses, make_msgid, parsedate_to_datetime
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import idna
from pydantic import AfterValidator, BaseModel, Field

from bot.config import EmailSettings, Settings
from bot.errors import ToolError
from tools.context import ToolContext
from tools.plugin import SkillContext, SkillPlugin
from tools.registry import Decision, Risk, Routing, tool
from tools.text import html_to_text, one_line, tidy

if TYPE_CHECKING:
    import aioimaplib

log = logging.getLogger(__name__)

_FETCH_START = re.compile(rb"^\d+ FETCH \(")
_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_FLAGS = re.compile(rb"\bFLAGS \(([^)]*)\)")
_ADDRESS = re.compile(r"^[^@\s<>,;:\"()\[\]]+@[^@\s<>,;:\"()\[\]]+$")
SNIPPET_CHARS = 160
BODY_CHARS = 20_000
# Messages larger than this are listed without a snippet (the body is not downloaded).
SNIPPET_MAX_BYTES = 512_000

Uid = Annotated[int, Field(ge=1, description="the email's uid, as listed by list_unread_email")]
# Limits keep the whole message readable in one approval (a chat message holds about 4,000 characters).


def plain_address(raw: str) -> str:
    """An address that reads as what it is: ASCII local part, IDNA (xn--) domain, one script per label.

    Invisible and control characters (U+202E, U+200B) and look-alike letters from another
    script (a Cyrillic "а" among Latin ones) are refused before anything is shown for approval.
    """
    address = raw.strip()
    hidden = [char for char in address if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")]
    if hidden:
        codes = ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(hidden))
        raise ValueError(f"{address!a} contains invisible or control characters ({codes}); "
                         "not a plain email address")
    if not _ADDRESS.match(address):
        raise ValueError(f"{address!a} is not a plain email address like name@example.org")
    local, _, domain = address.rpartition("@")
    if not local.isascii():
        raise ValueError(f"{address!a}: the part before @ must be plain ASCII (look-alike letters "
                         "from other alphabets are refused)")
    for label in domain.split("."):
        scripts = _scripts(label)
        if len(scripts) > 1:
            raise ValueError(f"{address!a}: the domain mixes alphabets ({', '.join(sorted(scripts))}), "
                             "a look-alike of another address")
    try:
        ascii_domain = idna.encode(domain, uts46=True).decode("ascii")
    except idna.IDNAError:
        raise ValueError(f"{address!a}: the domain is not a valid internet domain name") from None
    return f"{local}@{ascii_domain}"


def _scripts(label: str) -> set[str]:
    """The alphabets a domain label's letters come from (LATIN, CYRILLIC, GREEK…)."""
    return {unicodedata.name(char, "UNKNOWN").split()[0] for char in label if char.isalpha()}


def shown_address(address: str) -> str:
    """An address for the approval: an international domain is also shown decoded, and flagged."""
    local, _, domain = address.rpartition("@")
    if "xn--" not in domain.lower():
        return address
    try:
        readable = idna.decode(domain)
    except idna.IDNAError:
        return f"{address} (⚠ unreadable international domain)"
    return f"{address} (⚠ international domain: {local}@{readable})"


Address = Annotated[str, Field(min_length=3, max_length=120), AfterValidator(plain_address)]
Recipients = Annotated[
    list[Address],
    Field(min_length=1, max_length=10, description="recipient addresses, e.g. ['ana@example.org']"),
]
CopyRecipients = Annotated[list[Address], Field(max_length=10, description="Cc addresses (optional)")]
Subject = Annotated[str, Field(max_length=200, description="the subject line")]
Body = Annotated[str, Field(min_length=1, max_length=3_000, description="the plain-text body, complete")]


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    size: int


@dataclass(frozen=True)
class ParsedEmail:
    """A message as the model reads it: headers, text, and what is attached."""

    uid: int
    seen: bool
    sender: str
    to: str
    cc: str
    reply_to: str
    subject: str
    date: datetime | None
    message_id: str
    references: str
    text: str
    attachments: tuple[Attachment, ...]
    truncated: bool = False


@dataclass(frozen=True)
class _Fetched:
    uid: int
    flags: frozenset[str]
    size: int
    literal: bytes


def parse_email(uid: int, raw: bytes, flags: frozenset[str] = frozenset(), *,
                truncated: bool = False) -> ParsedEmail:
    """Parse RFC 5322 bytes: text/plain preferred, HTML turned into text, attachments listed."""
    message = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    text = ""
    try:
        body = message.get_body(preferencelist=("plain", "html"))
        if body is not None:
            content = body.get_content()
            text = html_to_text(content) if body.get_content_type() == "text/html" else tidy(content)
    except (LookupError, ValueError, AssertionError, KeyError):
        text = "(the body could not be decoded)"
    attachments: list[Attachment] = []
    for part in message.iter_attachments():
        payload = part.get_payload(decode=True)
        attachments.append(Attachment(
            filename=_header(part.get_filename()) or "(unnamed)",
            content_type=part.get_content_type(),
            size=len(payload) if isinstance(payload, bytes) else 0,
        ))
    return ParsedEmail(
        uid=uid,
        seen="\\Seen" in flags,
        sender=_header(message.get("From")),
        to=_header(message.get("To")),
        cc=_header(message.get("Cc")),
        reply_to=_header(message.get("Reply-To")),
        subject=_header(message.get("Subject")),
        date=_date(message.get("Date")),
        message_id=_header(message.get("Message-ID")).strip(),
        references=" ".join(_header(message.get("References")).split()),
        text=text,
        attachments=tuple(attachments),
        truncated=truncated,
    )


def _header(value: Any) -> str:
    """A header as one clean line (folded headers unfolded, control characters gone)."""
    if value is None:
        return ""
    return " ".join(str(value).replace("\x00", "").split())


def _date(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _when(value: datetime | None, zone: ZoneInfo) -> str:
    return value.astimezone(zone).strftime("%a %Y-%m-%d %H:%M") if value else "(no date)"


def _size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.0f} KB" if size < 1024**2 else f"{size / 1024**2:.1f} MB"


def check_addresses(addresses: list[str], field: str) -> list[str]:
    """Bare addresses only: no display names, no header tricks, no duplicates."""
    clean: list[str] = []
    for raw in addresses:
        address = raw.strip()
        if not _ADDRESS.match(address):
            raise ToolError(f"{field}: {raw!r} is not a plain email address like name@example.org")
        if address.lower() not in {a.lower() for a in clean}:
            clean.append(address)
    return clean


def check_subject(subject: str) -> str:
    if "\r" in subject or "\n" in subject:
        raise ToolError("the subject must be a single line")
    return subject.strip()


def describe_send(args: BaseModel) -> str:
    """The approval text: the message exactly as it will go."""
    return _outgoing("Send this email", args)


def describe_reply(args: BaseModel) -> str:
    return _outgoing(f"Send this reply to email uid {getattr(args, 'uid', '?')} (threaded)", args)


def _outgoing(title: str, args: BaseModel) -> str:
    to = ", ".join(shown_address(a) for a in getattr(args, "to", []) or [])
    cc = ", ".join(shown_address(a) for a in getattr(args, "cc", []) or [])
    lines = [f"{title}:", f"To: {to}"]
    if cc:
        lines.append(f"Cc: {cc}")
    lines += [f"Subject: {getattr(args, 'subject', '')}", "Body:", "-----", getattr(args, "body", ""), "-----"]
    return "\n".join(lines)


def _always_ask(args: BaseModel) -> Decision:
    return Decision.REQUIRE_APPROVAL


class EmailSkill(SkillPlugin):
    id = "email"
    description = (
        "the owner's email inbox: list unread emails, read one (text, attachments listed), "
        "mark emails read, send a new email or reply to one (sending asks the owner first)"
    )
    routing = Routing(
        summary=(
            "The user's email: list unread mail, read a message, mark as read, reply, write and send an "
            "email. Correo, mails, responder, mandar por correo."
        ),
        cues=(
            # Answering someone, or sending something to a person: mail is how the assistant sends.
            r"\bcont[eé]stale\b",
            r"\bresp[oó]ndele\b",
            # Answering the person whose message was just read: "tell him yes", "dile que sí".
            r"\btell (?:him|her|them) (?:yes|no|that|i'?m|i am|i'?ll|we'?re|ok|okay|sure)\b",
            r"\bdile(?:s)? (?:que|q) (?:s[ií]|no|vale|ok|voy|vamos|estoy|me apunto)\b",
            r"\btell (?:(?:the|my|our) )?(?!me\b|you\b|us\b)\w+ (?:that|yes|no|i'?m|i'?ll|i|we'?re|we'?ll|we'?d|we)\b",
            r"\b(?:contesta|responde) a (?!(?:est[aeo]|la pregunta|mi pregunta)\b)\w+",
            r"\b(?:send|mail)\b[^.?!]{0,40}\bto (?:my|mum|mom|dad|\S+@|(?:the )?(?-i:[A-Z])[^\W\d_]+\b)",
            # Sending someone named a thing: "send the Hendersons the weekend forecast", "send Dean the Argus one".
            r"\bsend (?:the )?(?-i:[A-Z])[^\W\d_]+(?:'s)? (?:the|a|an|my|our|this|that|those|these)\b",
            r"\b(?:m[aá]nd|env[ií])\w*\b[^.?!]{0,40}\ba (?:mi|mis)\s+\w+",
            # Sent to him or her: "tengo que mandarle a don Ricardo el informe… mándaselo tú", "envíale las fotos".
            r"\b(?:m[aá]nd|env[ií])(?:a|e|ar|[aá])?(?:le|les|selo|sela|selos|selas)\b",
            r"\be-?mail(?:s|ed|ing)?\b",
            r"\bmails?\b",
            r"\bcorreos?\b",
            r"\binbox\b",
            r"\bbandeja de entrada\b",
            r"[\w.+-]+@[\w-]+\.[\w.]+",
            # What mail is and does, when the message does not say "email": answers, forwards,
            # and the things that arrive by mail (a booking confirmation, a receipt, a newsletter).
            r"\brepl(?:y|ies|ied)\b",
            r"\bwrite back\b",
            r"\bforward\b",
            r"\breenv[ií]",
            r"\b(?:confirmation|receipt|newsletter|attachment)s?\b",
            r"\b(?:confirmaci[oó]n|adjuntos?)\b",
            r"\bme (?:ha )?lleg(?:ado|[oó])\b",
            # What someone sent: "qué me ha mandado el ayuntamiento?", "what did the council send me?".
            r"\bme (?:ha|han|has) (?:mandado|enviado|escrito)\b",
            r"\bme (?:escribi[oó]|escribieron|mand[oó]|mandaron|envi[oó]|enviaron)\b",
            r"\bwhat (?:did|has|have) (?:the )?\w+(?: \w+)? sen[dt] (?:me|us)\b",
            # ("did the signed contract come in?", "has the quote come in yet?")
            r"\b(?:came|come) in\b",
        ),
        examples=(
            "any new emails?",
            "read me the last email from my boss",
            "reply to Carla saying I'll be there at 6",
            "send an email to tom@example.com with the subject invoice",
            "mark all newsletters as read",
            "do I have unread mail from the school?",
            "what did Amazon email me about?",
            "forward that to my wife by email",
            "write to the landlord that the heating is broken",
            "tengo correos sin leer?",
            "léeme el último correo del banco",
            "contesta a Pedro que vale, que nos vemos el lunes",
            "manda un correo a lucia@correo.es diciendo que llego tarde",
            "marca como leídos los correos de publicidad",
            "qué me ha escrito el casero?",
            "envíaselo por mail a mi hermano",
            "mails nuevos?",
            "respóndele que sí",
            "escríbele al del taller preguntando si el coche está listo",
        ),
    )

    settings_section = "email"

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        if settings.email.enabled:
            return None
        return "no mail account: set EMAIL_IMAP_HOST, EMAIL_USERNAME and EMAIL_PASSWORD"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        ctx.add_tools(cls(ctx.settings.email))
        if not ctx.settings.email.can_send:
            log.info("email: reading only (set EMAIL_SMTP_HOST and EMAIL_FROM_ADDRESS to send)")

    def __init__(self, settings: EmailSettings) -> None:
        self._settings = settings

    # -- tools -----------------------------------------------------------------------
    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def list_unread_email(
        self,
        ctx: ToolContext,
        limit: Annotated[int, Field(ge=1, le=100, description="how many, newest first")] = 10,
    ) -> str:
        """List unread emails, newest first: uid, sender, date, subject and a snippet."""
        limit = min(limit, self._settings.max_list)
        async with self._mailbox() as box:
            uids = await box.search("UNSEEN")
            if not uids:
                return "No unread emails."
            shown = sorted(uids, reverse=True)[:limit]
            heads = await box.fetch(shown, "(UID FLAGS RFC822.SIZE BODY.PEEK[HEADER])")
            small = [f.uid for f in heads if f.size <= SNIPPET_MAX_BYTES]
            bodies = {f.uid: f for f in await box.fetch(small, "(UID BODY.PEEK[])")} if small else {}
        lines = [f"{len(uids)} unread email(s); showing {len(heads)}, newest first:"]
        for head in sorted(heads, key=lambda f: f.uid, reverse=True):
            full = bodies.get(head.uid)
            parsed = parse_email(head.uid, full.literal if full else head.literal, head.flags)
            snippet = one_line(parsed.text, SNIPPET_CHARS) if full else f"(large message, {_size(head.size)})"
            attached = f" · {len(parsed.attachments)} attachment(s)" if parsed.attachments else ""
            lines.append(
                f"- uid {parsed.uid} · from {parsed.sender or '(unknown)'} · {_when(parsed.date, ctx.timezone)}"
                f" · subject: {parsed.subject or '(no subject)'}{attached} · {snippet}"
            )
        return "\n".join(lines)

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def read_email(self, ctx: ToolContext, uid: Uid) -> str:
        """Read one email: headers, the text (HTML turned into text) and its attachments (not opened)."""
        parsed = await self.fetch_email(uid)
        lines = [
            f"Email uid {parsed.uid} ({'read' if parsed.seen else 'unread'})",
            f"From: {parsed.sender or '(unknown)'}",
        ]
        if parsed.reply_to:
            lines.append(f"Reply-To: {parsed.reply_to}")
        lines.append(f"To: {parsed.to or '(none)'}")
        if parsed.cc:
            lines.append(f"Cc: {parsed.cc}")
        lines += [f"Date: {_when(parsed.date, ctx.timezone)}", f"Subject: {parsed.subject or '(no subject)'}"]
        if parsed.attachments:
            listed = ", ".join(f"{a.filename} ({a.content_type}, {_size(a.size)})" for a in parsed.attachments)
            lines.append(f"Attachments (not opened): {listed}")
        text = parsed.text or "(no text body)"
        if len(text) > BODY_CHARS:
            text = text[:BODY_CHARS] + f"\n[… {len(text) - BODY_CHARS} more characters not shown]"
        if parsed.truncated:
            text += f"\n[the message is larger than {_size(self._settings.max_message_bytes)}; only its start was read]"
        lines += ["", text]
        return "\n".join(lines)

    @tool(risk=Risk.WRITE, idempotent=True,
          describe=lambda a: f"Mark email(s) {', '.join(str(u) for u in getattr(a, 'uids', []))} as read")
    async def mark_email_read(
        self,
        uids: Annotated[list[int], Field(min_length=1, max_length=200, description="uids to mark read")],
    ) -> str:
        """Mark one or more emails as read."""
        wanted = sorted(set(uids))
        async with self._mailbox() as box:
            found = set(await box.search(f"UID {_uid_set(wanted)}"))
            if found:
                await box.store(sorted(found), "+FLAGS.SILENT", r"(\Seen)")
        missing = [u for u in wanted if u not in found]
        if not found:
            raise ToolError(f"no email with uid {', '.join(map(str, missing))} in {self._settings.mailbox}")
        done = f"Marked as read: {', '.join(str(u) for u in sorted(found))}."
        return done + (f" Not found: {', '.join(map(str, missing))}." if missing else "")

    @tool(risk=Risk.WRITE, sends_data_out=True, policy=_always_ask, describe=describe_send)
    async def send_email(
        self, ctx: ToolContext, to: Recipients, subject: Subject, body: Body, cc: CopyRecipients | None = None,
    ) -> str:
        """Send a new email from the owner's account (the owner approves it first)."""
        message = self._compose(ctx, to, cc or [], subject, body)
        return await self._send(message)

    @tool(risk=Risk.WRITE, sends_data_out=True, policy=_always_ask, describe=describe_reply)
    async def reply_email(
        self, ctx: ToolContext, uid: Uid, to: Recipients, subject: Subject, body: Body,
        cc: CopyRecipients | None = None,
    ) -> str:
        """Reply to an email, threaded; `to` is normally the original sender (owner approves first)."""
        original = await self.fetch_email(uid)
        message = self._compose(ctx, to, cc or [], subject, body)
        if original.message_id:
            message["In-Reply-To"] = original.message_id
            message["References"] = " ".join(x for x in (original.references, original.message_id) if x)
        sent = await self._send(message)
        try:
            async with self._mailbox() as box:
                await box.store([uid], "+FLAGS.SILENT", r"(\Answered)")
        except ToolError:
            pass  # the reply went; a missing flag is cosmetic
        threading = "" if original.message_id else " (the original had no Message-ID, so it is not threaded)"
        return sent + threading

    # -- building blocks ---------------------------------------------------------------
    async def fetch_email(self, uid: int) -> ParsedEmail:
        """One message by uid, flags untouched; large ones are read up to the size limit."""
        limit = self._settings.max_message_bytes
        async with self._mailbox() as box:
            meta = await box.fetch([uid], "(UID FLAGS RFC822.SIZE)")
            if not meta:
                raise ToolError(f"no email with uid {uid} in {self._settings.mailbox}")
            truncated = meta[0].size > limit
            item = f"(UID BODY.PEEK[]<0.{limit}>)" if truncated else "(UID BODY.PEEK[])"
            fetched = await box.fetch([uid], item)
        if not fetched:
            raise ToolError(f"email uid {uid} disappeared while being read")
        return parse_email(uid, fetched[0].literal, meta[0].flags, truncated=truncated)

    def _compose(self, ctx: ToolContext, to: list[str], cc: list[str], subject: str, body: str) -> EmailMessage:
        settings = self._settings
        if not settings.can_send:
            raise ToolError("sending is not configured (EMAIL_SMTP_HOST and EMAIL_FROM_ADDRESS are needed)")
        sender = settings.from_address or settings.username or ""
        message = EmailMessage()
        message["From"] = sender
        message["To"] = ", ".join(check_addresses(to, "to"))
        if cc:
            message["Cc"] = ", ".join(check_addresses(cc, "cc"))
        message["Subject"] = check_subject(subject)
        message["Date"] = format_datetime(ctx.clock.now())
        domain = sender.rpartition("@")[2] or "localhost"
        message["Message-ID"] = make_msgid(domain=domain)
        message.set_content(body)
        return message

    async def _send(self, message: EmailMessage) -> str:
        import aiosmtplib  # the mail libraries load only when mail is configured and used

        settings = self._settings
        password = settings.password.get_secret_value() if settings.password else None
        recipients = [addr for _, addr in getaddresses(message.get_all("To", []) + message.get_all("Cc", []))]
        try:
            refused, _ = await aiosmtplib.send(
                message,
                hostname=settings.smtp_host,
                port=settings.smtp_port,
                username=settings.username if password else None,
                password=password,
                start_tls=settings.smtp_starttls and not settings.smtp_tls,
                use_tls=settings.smtp_tls,
                timeout=settings.timeout_seconds,
            )
        except aiosmtplib.SMTPAuthenticationError:
            raise ToolError("the mail server refused the login; check EMAIL_USERNAME and EMAIL_PASSWORD") from None
        except aiosmtplib.SMTPRecipientsRefused as exc:
            refused_all = ", ".join(r.recipient for r in exc.recipients)
            raise ToolError(f"not sent: the mail server refused every recipient ({refused_all})") from None
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise ToolError(f"not sent: {type(exc).__name__}: {exc}") from None
        accepted = [r for r in recipients if r not in refused]
        result = f"Sent to {', '.join(accepted)} (Message-ID {message['Message-ID']})."
        if refused:
            result += f" Refused by the server: {', '.join(refused)}."
        return result

    @asynccontextmanager
    async def _mailbox(self) -> AsyncIterator[_Mailbox]:
        settings = self._settings
        if not settings.enabled:
            raise ToolError("email is not configured (EMAIL_IMAP_HOST, EMAIL_USERNAME, EMAIL_PASSWORD)")
        import aioimaplib

        client_type = aioimaplib.IMAP4_SSL if settings.imap_tls else aioimaplib.IMAP4
        client = client_type(host=settings.imap_host, port=settings.imap_port,
                             timeout=settings.timeout_seconds)
        box = _Mailbox(client, settings.timeout_seconds)
        try:
            await box.open(settings)
            yield box
        finally:
            await box.close()


class _Mailbox:
    """One IMAP session with a selected mailbox; every failure becomes a ToolError."""

    def __init__(self, client: aioimaplib.IMAP4, timeout: float) -> None:
        self._client = client
        self._timeout = timeout
        self._logged_in = False

    async def open(self, settings: EmailSettings) -> None:
        password = settings.password.get_secret_value() if settings.password else ""
        await self._call("connect", self._client.wait_hello_from_server())
        login = await self._call("login", self._client.login(settings.username or "", password))
        if login.result != "OK":
            raise ToolError("the mail server refused the login; check EMAIL_USERNAME and EMAIL_PASSWORD")
        self._logged_in = True
        selected = await self._call("select", self._client.select(_quote(settings.mailbox)))
        if selected.result != "OK":
            raise ToolError(f"the mailbox {settings.mailbox!r} cannot be opened: {_text(selected.lines)}")

    async def close(self) -> None:
        try:
            if self._logged_in:
                await asyncio.wait_for(self._client.logout(), self._timeout)
        except Exception:
            pass  # the session is over either way
        finally:
            transport = getattr(self._client.protocol, "transport", None)
            if transport is not None:
                transport.close()

    async def search(self, criteria: str) -> list[int]:
        response = await self._call("search", self._client.uid_search(criteria))
        self._ok("search", response)
        found: list[int] = []
        for line in response.lines[:-1]:
            found += [int(token) for token in bytes(line).split() if token.isdigit()]
        return found

    async def fetch(self, uids: list[int], items: str) -> list[_Fetched]:
        response = await self._call("fetch", self._client.uid("fetch", _uid_set(uids), items))
        self._ok("fetch", response)
        return _parse_fetch(response.lines)

    async def store(self, uids: list[int], action: str, flags: str) -> None:
        response = await self._call("store", self._client.uid("store", _uid_set(uids), action, flags))
        self._ok("store", response)

    async def _call(self, what: str, work: Any) -> Any:
        import aioimaplib

        try:
            return await asyncio.wait_for(work, self._timeout)
        except (TimeoutError, aioimaplib.CommandTimeout):
            raise ToolError(f"the mail server did not answer ({what}) within {self._timeout:g} s") from None
        except (OSError, aioimaplib.Abort, aioimaplib.Error) as exc:
            raise ToolError(f"could not talk to the mail server ({what}): {type(exc).__name__}: {exc}") from None

    @staticmethod
    def _ok(what: str, response: Any) -> None:
        if response.result != "OK":
            raise ToolError(f"the mail server refused {what}: {_text(response.lines)}")


def _parse_fetch(lines: list[Any]) -> list[_Fetched]:
    """aioimaplib gives FETCH responses as text lines with literals (bytearrays) in between."""
    records: list[tuple[bytes, list[bytes]]] = []
    for line in lines:
        if isinstance(line, bytearray):
            if records:
                records[-1][1].append(bytes(line))
            continue
        raw = bytes(line)
        if _FETCH_START.match(raw):
            records.append((raw, []))
        elif records:
            records[-1] = (records[-1][0] + b" " + raw, records[-1][1])
    fetched: list[_Fetched] = []
    for meta, literals in records:
        uid = _UID.search(meta)
        if uid is None:
            continue
        size = _SIZE.search(meta)
        flags = _FLAGS.search(meta)
        fetched.append(_Fetched(
            uid=int(uid.group(1)),
            flags=frozenset(flags.group(1).decode("ascii", "replace").split()) if flags else frozenset(),
            size=int(size.group(1)) if size else 0,
            literal=literals[0] if literals else b"",
        ))
    return fetched


def _uid_set(uids: list[int]) -> str:
    return ",".join(str(u) for u in uids)


def _quote(mailbox: str) -> str:
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"' if " " in mailbox else mailbox


def _text(lines: list[Any]) -> str:
    return " ".join(bytes(line).decode("utf-8", "replace") for line in lines)[:200]
