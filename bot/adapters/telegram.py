"""Telegram through python-telegram-bot 22, running inside our own event loop.

The adapter translates, never decides: it checks the allowlist, turns updates into
InboundEvents for `Assistant.receive` / `Assistant.decide`, and renders what the core
sends back. The adapter drives getUpdates itself, because PTB's Updater moves the offset
(which tells Telegram an update was received) before its handlers run: here the offset
moves past an update only once the core has stored it, so a crash loses nothing and a
redelivered update is recognised by its id. The core works through what it stored, so
polling (and button presses) go on while a turn runs or waits for an approval. A voice note,
photo or file is stored as a FileToFetch (its file_id, after the checks that need no
download) and downloaded by its chat's worker through `fetch`: a slow download holds up
only its own chat, and the update is acknowledged at once.
Long polling by default; a webhook server (aiohttp) when TELEGRAM_WEBHOOK_URL is set,
which answers Telegram only after the update is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import json
import logging
import re
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

from aiohttp import web
from telegram import (
    BotCommand,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    KeyboardButton,
    LinkPreviewOptions,
    Message,
    ReplyKeyboardMarkup,
    Update,
    User,
)
from telegram import Location as TelegramLocation
from telegram.constants import ChatAction, MessageEntityType
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import Application, ApplicationBuilder, Defaults
from telegram.request import RequestData
from telegram.warnings import PTBDeprecationWarning

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES, EDIT_NOT_READ, always_label
from bot.adapters.telegram_render import (
    MAX_DESCRIPTION_CHARS,
    SHOW_ALL,
    RenderedPart,
    append_line,
    plain_with_bold_header,
    render_markdown,
    with_receipts,
)
from bot.adapters.telegram_request import AiohttpRequest, AnswerTimedOut
from bot.clock import Clock
from bot.config import TelegramSettings
from bot.core.approvals import ApprovalOutcome, ApprovalRequest, DecisionResult
from bot.core.assistant import Assistant
from bot.core.events import (
    ApprovalDecision,
    AttachmentKind,
    AttachmentMessage,
    ChatKind,
    ChatRef,
    CommandMessage,
    FileKind,
    FileToFetch,
    InboundEvent,
    Location,
    LocationShared,
    LocationSource,
    OutboundMessage,
    Platform,
    Progress,
    SentMessage,
    TextMessage,
)
from bot.errors import ConfigError, DatabaseError, DeliveryError, FetchError, StartupError
from memory.db import Database

log = logging.getLogger(__name__)

T = TypeVar("T")

ALLOWED_UPDATES = ("message", "edited_message", "callback_query")
# Telegram shows "typing…" for about five seconds; refresh a little before it fades, and
# never more often (one chat action per chat per refresh, however many calls ask for it).
TYPING_REFRESH_SECONDS = 4.0
# "typing…" is kept up at most this long without a new request from the core.
TYPING_KEEPALIVE_SECONDS = 120.0
MAX_POLL_BACKOFF_SECONDS = 30.0
SEND_CONNECTIONS = 128
# A RetryAfter (flood control) longer than this is not waited out.
MAX_RETRY_AFTER_SECONDS = 60.0
MAX_WEBHOOK_BODY_BYTES = 1024 * 1024
# Characters per part when text goes out as written: at most two UTF-16 units each, so under 4096.
PLAIN_PART_CHARS = 2000
# Strangers get one refusal each per process; the set is bounded so it cannot grow forever.
MAX_REMEMBERED_STRANGERS = 10_000

SHOW_ALL_VERB = "all"
_CALLBACK = re.compile(r"^(?P<verb>ok|al|no):(?P<id>[A-Za-z0-9_-]{16,43})$")
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")

REFUSAL = (
    "Sorry, this is a private assistant and you are not on its list of users. "
    "(Your Telegram user id is {user_id}.)"
)
UNSUPPORTED = ("I can read text, voice notes, locations, photos and files; I can't do anything with this "
               "kind of message.")
FILE_TOO_BIG = ("That file is too large for me ({size:,} bytes; the limit is {limit:,}, "
                "TELEGRAM_MAX_FILE_BYTES). I did not keep it.")
FORWARDED_FILENAME = "forwarded-message.txt"
TOO_MANY_FILES = "I take up to {limit} photos or files per message; the rest of this album was not kept."
# Albums arrive as one message per item sharing a media_group_id; remember a bounded number.
MAX_REMEMBERED_ALBUMS = 1_000
VOICE_TOO_BIG = "That voice note is too large for me ({size:,} bytes; the limit is {limit:,})."
FETCH_REFUSED = "Telegram would not hand me that {what} ({reason}), so I could not keep it. Please send it again."
FETCH_FAILED = ("Telegram did not hand me that {what} even after I tried for a few minutes ({reason}), so I could "
                "not keep it. Please send it again.")
_WHAT = {FileKind.VOICE: "voice note", FileKind.PHOTO: "photo", FileKind.DOCUMENT: "file"}
SHARE_LOCATION = "📍 Share my location"
APPROVAL_HEADER = "Approval needed"
APPROVAL_FOOTER = "Answer within {minutes} min; no answer means no."


class TelegramDeliveryError(DeliveryError):
    """Telegram did not accept a message, even after retrying network errors."""


def callback_data(request_id: str, approve: bool, always: bool = False) -> str:
    """What an approval button carries: the verb and the request's 128-bit random id."""
    verb = ("al" if always else "ok") if approve else "no"
    return f"{verb}:{request_id}"


def parse_callback_data(data: str | None) -> tuple[str, bool, bool] | None:
    """(request id, approve, always) from a button's data; None for anything we did not make."""
    match = _CALLBACK.match(data or "")
    if match is None:
        return None
    verb = match.group("verb")
    return match.group("id"), verb in ("ok", "al"), verb == "al"


def parse_command(message: Message, bot_username: str | None) -> tuple[str, str] | None:
    """(name, argument) of `/name@bot argument`; None if it is not a command for this bot."""
    text = message.text or ""
    entity = next(iter(message.entities), None)
    if entity is None or entity.type != MessageEntityType.BOT_COMMAND or entity.offset != 0:
        return None
    word = text[1 : entity.length]
    name, _, addressee = word.partition("@")
    if addressee and bot_username and addressee.lower() != bot_username.lower():
        return None
    return name.lower(), text[entity.length :].strip()


class TolerantUpdatesRequest(AiohttpRequest):
    """getUpdates transport that can replace updates PTB cannot parse by bare ones.

    PTB parses a whole getUpdates batch at once; one malformed update makes it drop the
    batch without advancing the offset, so polling would fetch the same batch forever.
    With `sanitize` on, a bare `{"update_id": n}` keeps the offset moving and is ignored by
    the handler. It is off until a batch fails to parse: checking every update means
    parsing each one twice, and a burst is hundreds of them.
    """

    sanitize = False

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = AiohttpRequest.DEFAULT_NONE,
        write_timeout: Any = AiohttpRequest.DEFAULT_NONE,
        connect_timeout: Any = AiohttpRequest.DEFAULT_NONE,
        pool_timeout: Any = AiohttpRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        status, body = await super().do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        if not self.sanitize or status != 200 or not url.endswith("/getUpdates"):
            return status, body
        return status, sanitize_updates_body(body)


def sanitize_updates_body(body: bytes) -> bytes:
    try:
        payload = json.loads(body)
    except ValueError:
        return body
    result = payload.get("result") if isinstance(payload, dict) else None
    if not isinstance(result, list):
        return body
    kept: list[Any] = []
    for item in result:
        if _parses(item):
            kept.append(item)
        elif isinstance(item, dict) and isinstance(item.get("update_id"), int):
            log.warning("update %s could not be read and was skipped", item["update_id"])
            kept.append({"update_id": item["update_id"]})
        else:
            log.warning("an update without a usable update_id was dropped")
    payload["result"] = kept
    return json.dumps(payload).encode()


def _parses(item: Any) -> bool:
    if not isinstance(item, dict) or not isinstance(item.get("update_id"), int):
        return False
    try:
        # de_json rewrites the dict it is given, so it gets a copy.
        Update.de_json(json.loads(json.dumps(item)), None)
    except Exception:
        return False
    return True


class TelegramAdapter:
    """The Messenger for Telegram; `start()` registers it with the assistant."""

    platform = Platform.TELEGRAM

    def __init__(
        self, settings: TelegramSettings, assistant: Assistant, db: Database, clock: Clock
    ) -> None:
        if not settings.enabled or settings.bot_token is None:
            raise ConfigError("TELEGRAM_BOT_TOKEN: expected the token BotFather gave you (it is empty)")
        if settings.webhook_url and settings.webhook_secret is None:
            raise ConfigError(
                "TELEGRAM_WEBHOOK_SECRET: expected a secret token when TELEGRAM_WEBHOOK_URL is set"
            )
        self._settings = settings
        self._assistant = assistant
        self._db = db
        self._clock = clock
        self._allowed = frozenset(settings.allowed_users)
        self._app: Application[Any, Any, Any, Any, Any, Any] | None = None
        self._stack = contextlib.AsyncExitStack()
        self._typing_tasks: dict[str, asyncio.Task[None]] = {}
        self._typing_sent: dict[str, datetime] = {}
        self._poll_task: asyncio.Task[None] | None = None
        self._updates_request: TolerantUpdatesRequest | None = None
        self._offset: int | None = None
        self._open_approvals: dict[str, ApprovalRequest] = {}
        self._refused: set[int] = set()
        self._albums: Counter[str] = Counter()
        self._webhook_runner: web.AppRunner | None = None
        self._bot_username: str | None = None

    # -- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        """Connect (getMe), register with the assistant, set the commands, start receiving.

        Raises StartupError (one line, no secret) when Telegram is unreachable or rejects
        the token: a process that can never receive must exit, not hang.
        """
        settings = self._settings
        assert settings.bot_token is not None
        requests = (TolerantUpdatesRequest(connection_pool_size=2, read_timeout=10.0),
                    # Every chat with a turn running may send at once (typing, a progress draft,
                    # the answer): with fewer connections they queue, and past the pool timeout fail.
                    AiohttpRequest(connection_pool_size=SEND_CONNECTIONS, read_timeout=30.0,
                                   media_write_timeout=60.0))
        self._updates_request = requests[0]
        app = (
            ApplicationBuilder()
            .token(settings.bot_token.get_secret_value())
            .base_url(settings.base_url)
            .base_file_url(settings.base_file_url)
            .get_updates_request(requests[0])
            .request(requests[1])
            .job_queue(None)
            # A preview makes Telegram's servers fetch a link nobody clicked: a link that
            # carries data (…?d=<secret>) would leak it. Off for every send and edit.
            .defaults(Defaults(link_preview_options=LinkPreviewOptions(is_disabled=True)))
            .updater(None)
            .build()
        )
        host = urlsplit(settings.base_url).netloc or settings.base_url
        try:
            await self._stack.enter_async_context(app)  # initialize() (getMe) now, shutdown() in stop()
        except TelegramError as exc:
            # PTB shuts down only what finished initializing: the connections opened for getMe close here.
            for request in requests:
                await request.shutdown()
            if isinstance(exc, InvalidToken):
                raise StartupError("Telegram rejected TELEGRAM_BOT_TOKEN; check the token BotFather gave you") from None
            raise StartupError(f"cannot reach the Telegram Bot API at {host} ({type(exc).__name__})") from None
        self._app = app
        self._bot_username = app.bot.username
        self._assistant.add_messenger(self)
        self._assistant.add_file_fetcher(self.platform, self)
        await self._set_commands()
        if settings.webhook_url:
            await self._start_webhook()
        else:
            self._poll_task = asyncio.create_task(self._poll(), name="telegram-poll")
        log.info("telegram: @%s is %s", self._bot_username,
                 "receiving through a webhook" if settings.webhook_url else "polling")

    async def stop_receiving(self) -> None:
        """Take no new updates (a graceful stop lets the running turns finish after this)."""
        if self._poll_task is not None:
            self._poll_task.cancel()
            await asyncio.gather(self._poll_task, return_exceptions=True)
            self._poll_task = None
            if self._offset is not None and self._app is not None:
                # Confirm what was stored, so the next start does not fetch it again.
                with contextlib.suppress(TelegramError):
                    await self._app.bot.get_updates(offset=self._offset, timeout=timedelta(0), limit=1,
                                                    read_timeout=5.0)
        if self._webhook_runner is not None:
            await self._webhook_runner.cleanup()
            self._webhook_runner = None

    async def stop(self) -> None:
        """Stop receiving, close approvals the core resolved, disconnect."""
        app = self._app
        if app is None:
            return
        await self.stop_receiving()
        await self._close_abandoned_approvals()
        for typing_task in list(self._typing_tasks.values()):
            typing_task.cancel()
        await self._stack.aclose()
        self._app = None

    @property
    def application(self) -> Application[Any, Any, Any, Any, Any, Any]:
        if self._app is None:
            raise RuntimeError("the Telegram adapter is not started")
        return self._app

    # -- Messenger ---------------------------------------------------------------------
    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        """Post Markdown as one or more messages; the first part's id is returned."""
        parts = with_receipts(render_markdown(message.text), message.receipts)
        if not parts and message.text.strip():
            # Markup alone ("<br>", an empty code block) renders to nothing: the words as written
            # beat silence, which the outbox would record as delivered.
            log.warning("telegram: a %s message rendered to nothing; sending it as written", message.kind)
            text = message.text.strip()
            parts = [RenderedPart(text[i:i + PLAIN_PART_CHARS]) for i in range(0, len(text), PLAIN_PART_CHARS)]
        if not parts:
            log.warning("telegram: nothing to send (empty %s message)", message.kind)
            return None
        markup = (
            ReplyKeyboardMarkup([[s] for s in message.suggestions], one_time_keyboard=True,
                                resize_keyboard=True)
            if message.suggestions else None
        )
        if message.ask_location and chat.kind is not ChatKind.GROUP and int(chat.chat_id) > 0:
            # Telegram's own button: one tap shares the position (private chats only).
            markup = ReplyKeyboardMarkup([[KeyboardButton(SHARE_LOCATION, request_location=True)]],
                                         one_time_keyboard=True, resize_keyboard=True)
        first: SentMessage | None = None
        self._stop_typing(chat)
        for index, part in enumerate(parts, start=1):
            last = index == len(parts)
            sent, attempts = await self._send_part(chat, part, markup if last else None)
            await self._record(chat, sent.message_id, message.kind.value, index, len(parts), attempts)
            first = first or SentMessage(chat, str(sent.message_id))
        return first

    async def typing(self, chat: ChatRef) -> None:
        """Show "typing…" and keep it up until the next message to this chat (or a while)."""
        await self._chat_action(chat)
        if chat.chat_id not in self._typing_tasks:
            task = asyncio.create_task(self._keep_typing(chat))
            self._typing_tasks[chat.chat_id] = task
            task.add_done_callback(self._forget_typing_task)

    async def show_progress(self, progress: Progress) -> None:
        """A draft in a private chat (Bot API sendMessageDraft); elsewhere "typing…" says enough.

        The draft carries the turn id, so each step of one turn animates in place; the answer,
        sent as a normal message, takes its place.
        """
        if progress.chat.kind is ChatKind.GROUP or int(progress.chat.chat_id) <= 0:
            return
        part = render_markdown(progress.text)
        if not part:
            return
        try:
            await self.application.bot.send_message_draft(
                int(progress.chat.chat_id), draft_id=max(1, progress.turn_id), text=part[0].text,
                entities=part[0].entities or None)
        except TelegramError as exc:
            log.info("telegram: progress draft not shown: %s", exc)

    async def present_approval(self, request: ApprovalRequest) -> SentMessage | None:
        part = _approval_part(request)
        self._stop_typing(request.chat)  # no "typing…" while it waits for you
        keyboard = InlineKeyboardMarkup(approval_buttons(request))
        sent, attempts = await self._send_part(request.chat, part, keyboard)
        await self._record(request.chat, sent.message_id, "approval", 1, 1, attempts)
        self._open_approvals[request.id] = dataclasses.replace(request, message_id=str(sent.message_id))
        return SentMessage(request.chat, str(sent.message_id))

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        """Edit the approval message to the outcome; the buttons go away with the edit."""
        if outcome is not ApprovalOutcome.PENDING:
            self._open_approvals.pop(request.id, None)
        if request.message_id is None:
            log.warning("approval %s… has no message to edit", request.id[:6])
            return
        part = append_line(_approval_part(request), APPROVAL_OUTCOME_LABELS[outcome])
        bot = self.application.bot
        try:
            await self._retrying(lambda: bot.edit_message_text(
                part.text, chat_id=int(request.chat.chat_id), message_id=int(request.message_id or 0),
                entities=part.entities,
            ))
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise

    # -- inbound -----------------------------------------------------------------------
    async def _poll(self) -> None:
        """Long-poll getUpdates; the offset moves past an update only once it is stored."""
        bot = self.application.bot
        timeout = self._settings.poll_timeout_seconds
        failures = 0
        while True:
            reading = self._updates_request
            try:
                updates = await bot.get_updates(
                    offset=self._offset, timeout=timedelta(seconds=timeout),
                    allowed_updates=list(ALLOWED_UPDATES), read_timeout=timeout + 10.0,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not isinstance(exc, TelegramError) and reading is not None and not reading.sanitize:
                    # PTB could not parse the batch (nothing was taken): fetched again at once,
                    # this time update by update, the unreadable ones skipped.
                    log.warning("telegram: a batch of updates could not be read (%s); checking each one",
                                type(exc).__name__)
                    reading.sanitize = True
                    continue
                failures += 1
                delay = min(self._settings.retry_backoff_seconds * 2 ** min(failures - 1, 8),
                            MAX_POLL_BACKOFF_SECONDS)
                log.warning("telegram: polling failed (%s); retrying in %.0f s", type(exc).__name__, delay)
                await asyncio.sleep(delay)
                continue
            if reading is not None:
                reading.sanitize = False
            failures = 0
            if not await self._take_all(updates):
                # Not stored: fetched again (from the first update not stored) by the next getUpdates.
                await asyncio.sleep(self._settings.retry_backoff_seconds)

    async def _take_all(self, updates: Sequence[Update]) -> bool:
        """Store a getUpdates batch in order, the offset moving past what is stored; False
        when storing failed. A run of texts and commands is stored in one durable commit
        (a burst of messages costs one flush to disk, not one each); anything else, one by one."""
        run: list[tuple[Update, TextMessage | CommandMessage]] = []
        for update in updates:
            event = self._plain(update)
            if event is not None:
                run.append((update, event))
                continue
            if not await self._take_run(run) or not await self._take(update):
                return False
            run = []
            self._offset = update.update_id + 1
        return await self._take_run(run)

    async def _take_run(self, run: Sequence[tuple[Update, TextMessage | CommandMessage]]) -> bool:
        if not run:
            return True
        try:
            await self._assistant.receive_many([(event, _source(update)) for update, event in run])
        except asyncio.CancelledError:
            raise
        except (DatabaseError, OSError) as exc:
            log.error("telegram: %d update(s) from %s on not stored (%s); they will be fetched again",
                      len(run), run[0][0].update_id, exc)
            return False
        except Exception:
            # A bug must not stall every later update, nor cost the run's other messages:
            # one by one, only the update that fails is skipped.
            log.exception("telegram: a batch of %d update(s) failed; storing them one by one", len(run))
            for update, _ in run:
                if not await self._take(update):
                    return False
                self._offset = update.update_id + 1
            return True
        self._offset = run[-1][0].update_id + 1
        return True

    def _plain(self, update: Update) -> TextMessage | CommandMessage | None:
        """A text or command of an allowed user (what a burst is made of); None for anything else."""
        user = update.effective_user
        message = update.message
        if (user is None or user.is_bot or user.id not in self._allowed or message is None
                or message.text is None or _command_for_another_bot(message, self._bot_username)):
            return None
        event = self._event_for(_chat_of(update, user), message)
        return event if isinstance(event, TextMessage | CommandMessage) else None

    async def _take(self, update: Update) -> bool:
        """Translate and store one update; False if it must be fetched again (storage failed)."""
        try:
            await self._translate(update)
        except asyncio.CancelledError:
            raise
        except (DatabaseError, OSError) as exc:
            log.error("telegram: update %s not stored (%s); it will be fetched again", update.update_id, exc)
            return False
        except TelegramError as exc:
            if _transient(exc):
                log.error("telegram: update %s not taken (%s); it will be fetched again", update.update_id, exc)
                return False
            # Telegram refused for good (BadRequest is a NetworkError to PTB, but asking again gets
            # the same answer): fetching the update again would stall every later one for ever.
            log.error("telegram: update %s skipped: Telegram refused a request it needs (%s)",
                      update.update_id, exc)
        except Exception:
            # A bug for this one update must not stall every later one.
            log.exception("telegram: update %s failed and is skipped", update.update_id)
        return True

    async def _translate(self, update: Update) -> None:
        user = update.effective_user
        if user is None or user.is_bot:
            return  # channel posts, bare (unreadable) updates, other bots
        if user.id not in self._allowed:
            await self._refuse(update, user)
            return
        chat = _chat_of(update, user)
        if update.callback_query is not None:
            await self._on_press(update.callback_query, chat)
            return
        source = _source(update)
        if update.edited_message is not None:
            edited = update.edited_message
            if edited.location is not None:
                await self._assistant.receive(self._live_update(chat, edited, edited.location), source)
            elif edited.text is not None or edited.caption is not None:
                # The first version was already answered; running the edit as a new message could
                # repeat an action, and silence would let the user think the change was read.
                await self._notice(chat, EDIT_NOT_READ)
            return
        message = update.message
        if message is None:
            return
        if message.voice is not None:
            await self._voice(chat, message, source)
            return
        if message.photo or message.document is not None:
            await self._attachment(chat, message, source)
            return
        if _command_for_another_bot(message, self._bot_username):
            return
        event = self._event_for(chat, message)
        if event is None:
            await self._notice(chat, UNSUPPORTED)
        else:
            await self._assistant.receive(event, source)

    def _event_for(self, chat: ChatRef, message: Message) -> InboundEvent | None:
        if message.text is not None and message.forward_origin is not None:
            # A forwarded message is somebody else's words (the owner only passed it on): it
            # reaches the core as a file sent in, read as third-party text, never as the
            # owner's request or command.
            return AttachmentMessage(chat, AttachmentKind.DOCUMENT, message.text.encode("utf-8"),
                                     FORWARDED_FILENAME, "text/plain", "", str(message.message_id))
        if message.text is not None:
            command = parse_command(message, self._bot_username)
            if command is not None:
                return CommandMessage(chat, command[0], command[1])
            return TextMessage(chat, message.text, str(message.message_id))
        if message.venue is not None:
            venue = message.venue
            label = ", ".join(x for x in (venue.title, venue.address) if x)
            return LocationShared(chat, self._location(venue.location, message.date,
                                                       LocationSource.VENUE, label))
        if message.location is not None:
            source = LocationSource.LIVE if _is_live(message.location) else LocationSource.PIN
            return LocationShared(chat, self._location(message.location, message.date, source))
        return None

    def _live_update(self, chat: ChatRef, message: Message, location: TelegramLocation) -> LocationShared:
        when = message.edit_date or message.date
        place = self._location(location, when, LocationSource.LIVE)
        # An edit without live_period is the one Telegram sends when sharing stops.
        return LocationShared(chat, place, live_ended=not _is_live(location))

    def _location(self, location: TelegramLocation, when: datetime | None, source: LocationSource,
                  label: str | None = None) -> Location:
        now = self._clock.now()
        at = min(when, now) if when is not None else now  # never in our future
        return Location(
            latitude=location.latitude,
            longitude=location.longitude,
            at=at,
            source=source,
            accuracy_m=location.horizontal_accuracy,
            label=label,
        )

    async def _on_press(self, query: CallbackQuery, chat: ChatRef) -> None:
        if (query.data or "").startswith(f"{SHOW_ALL_VERB}:"):
            await self._show_all(query, chat, (query.data or "").split(":", 1)[1])
            return
        parsed = parse_callback_data(query.data)
        if parsed is None:
            result = DecisionResult.UNKNOWN
        else:
            request_id, approve, always = parsed
            result = await self._assistant.decide(ApprovalDecision(chat, request_id, approve, always))
        await self._answer(query, DECISION_NOTICES[result])

    async def _show_all(self, query: CallbackQuery, chat: ChatRef, request_id: str) -> None:
        """Send the whole approval, exact arguments included, as a file; only to its owner."""
        request = await self._assistant.broker.pending(request_id)
        if request is None:
            await self._answer(query, DECISION_NOTICES[DecisionResult.UNKNOWN])
            return
        if request.chat.user_key != chat.user_key:
            await self._answer(query, DECISION_NOTICES[DecisionResult.NOT_OWNER])
            return
        await self._answer(query, "Sending everything as a file.")
        await self._retrying(lambda: self.application.bot.send_document(
            int(request.chat.chat_id), document=request.full_text().encode("utf-8"),
            filename=f"approval-{request.fingerprint}.txt",
            caption=f"Everything this approval would run (fingerprint {request.fingerprint}).",
        ))

    async def _refuse(self, update: Update, user: User) -> None:
        """One short refusal per stranger; nothing of theirs is stored or passed on."""
        log.warning("telegram: refused an update from user %s (not in TELEGRAM_ALLOWED_USERS)", user.id)
        if update.callback_query is not None:
            await self._answer(update.callback_query, DECISION_NOTICES[DecisionResult.NOT_OWNER])
            return
        if user.id in self._refused or update.effective_chat is None or update.message is None:
            return
        if len(self._refused) >= MAX_REMEMBERED_STRANGERS:
            self._refused.clear()
        self._refused.add(user.id)
        await self.application.bot.send_message(
            update.effective_chat.id, REFUSAL.format(user_id=user.id)
        )

    async def _answer(self, query: CallbackQuery, text: str) -> None:
        try:
            await query.answer(text)
        except TelegramError as exc:
            log.warning("telegram: could not answer a button press: %s", exc)

    def _reason(self, exc: TelegramError) -> str:
        """Telegram's words, for the user; a download error may carry the file URL, token included."""
        token = self._settings.bot_token.get_secret_value() if self._settings.bot_token else ""
        reason = exc.message.removeprefix("Bad Request: ")
        return reason.replace(token, "[TELEGRAM_BOT_TOKEN]") if token else reason

    async def _notice(self, chat: ChatRef, text: str) -> None:
        await self.application.bot.send_message(int(chat.chat_id), text)

    # -- voice notes, photos and files ---------------------------------------------------
    async def _voice(self, chat: ChatRef, message: Message, source: str) -> None:
        """Check the declared size; the audio is stored as a FileToFetch, fetched by the chat's worker."""
        voice = message.voice
        assert voice is not None
        limit = self._settings.max_voice_bytes
        if voice.file_size is not None and voice.file_size > limit:
            await self._notice(chat, VOICE_TOO_BIG.format(size=voice.file_size, limit=limit))
            return
        mime = voice.mime_type or "audio/ogg"
        extension = mime.rsplit("/", 1)[-1]
        filename = f"voice.{'ogg' if extension in ('ogg', 'opus', 'oga') else extension}"
        await self._assistant.receive(FileToFetch(chat, FileKind.VOICE, voice.file_id, filename, mime,
                                                  message_id=str(message.message_id),
                                                  declared_size=voice.file_size,
                                                  forwarded=message.forward_origin is not None), source)

    async def _attachment(self, chat: ChatRef, message: Message, source: str) -> None:
        """Check what Telegram declares (size, album count) without downloading anything.

        The update is stored with the file's id, not its bytes: the chat's worker fetches
        them (`fetch`) after the update is acknowledged."""
        settings = self._settings
        declared = message.photo[-1] if message.photo else message.document  # the largest photo size
        assert declared is not None
        if declared.file_size is not None and declared.file_size > settings.max_file_bytes:
            await self._notice(chat, FILE_TOO_BIG.format(size=declared.file_size, limit=settings.max_file_bytes))
            return
        group = message.media_group_id
        if group is not None:
            if len(self._albums) >= MAX_REMEMBERED_ALBUMS:
                self._albums.clear()
            self._albums[group] += 1
            if self._albums[group] > settings.max_files_per_message:
                if self._albums[group] == settings.max_files_per_message + 1:
                    await self._notice(chat, TOO_MANY_FILES.format(limit=settings.max_files_per_message))
                return
        if message.photo:
            kind, filename, mime = FileKind.PHOTO, f"photo-{message.message_id}.jpg", "image/jpeg"
        else:
            assert message.document is not None
            kind = FileKind.DOCUMENT
            filename = message.document.file_name or f"file-{message.message_id}"
            mime = message.document.mime_type or "application/octet-stream"
        await self._assistant.receive(FileToFetch(chat, kind, declared.file_id, filename, mime, message.caption or "",
                                                  str(message.message_id), declared.file_size,
                                                  forwarded=message.forward_origin is not None), source)

    async def fetch(self, file: FileToFetch) -> bytes:
        """The bytes of a file stored unfetched (the core's FileFetcher), checked against the
        limit as getFile states it and as they came; FetchError says why not, for the user."""
        voice = file.kind is FileKind.VOICE
        limit = self._settings.max_voice_bytes if voice else self._settings.max_file_bytes
        too_big = VOICE_TOO_BIG if voice else FILE_TOO_BIG
        bot = self.application.bot
        if voice:
            with contextlib.suppress(TelegramError):
                await bot.send_chat_action(int(file.chat.chat_id), ChatAction.RECORD_VOICE)
        try:
            found = await self._retrying(lambda: bot.get_file(file.ref))
            if found.file_size is not None and found.file_size > limit:
                raise FetchError(too_big.format(size=found.file_size, limit=limit))
            data = bytes(await self._retrying(found.download_as_bytearray))
        except TelegramError as exc:
            what, reason = _WHAT[file.kind], self._reason(exc)
            if _transient(exc):
                raise FetchError(FETCH_FAILED.format(what=what, reason=reason), transient=True) from None
            raise FetchError(FETCH_REFUSED.format(what=what, reason=reason)) from None
        if len(data) > limit:
            raise FetchError(too_big.format(size=len(data), limit=limit))
        return data

    # -- outbound helpers --------------------------------------------------------------
    async def _send_part(
        self, chat: ChatRef, part: RenderedPart, markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None
    ) -> tuple[Message, int]:
        try:
            return await self._send_part_once(chat, part, markup)
        except TelegramDeliveryError as exc:
            cause = exc.__cause__
            if not (part.entities and isinstance(cause, BadRequest) and "entit" in cause.message.lower()):
                raise  # any other refusal would be refused again: not retried
            # Telegram objects to the formatting (ours, not the user's words): the answer goes out
            # plain rather than not at all, since a refused send is lost for good.
            log.warning("telegram: a formatted message was refused (%s); sending it as plain text", exc)
            return await self._send_part_once(chat, RenderedPart(part.text), markup)

    async def _send_part_once(
        self, chat: ChatRef, part: RenderedPart, markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None
    ) -> tuple[Message, int]:
        bot = self.application.bot
        try:
            return await self._retrying_counted(lambda: bot.send_message(
                int(chat.chat_id), part.text, entities=part.entities, reply_markup=markup,
            ), resend_after_timeout=False)
        except (BadRequest, Forbidden) as exc:
            raise TelegramDeliveryError(f"Telegram refused the message: {exc}", permanent=True) from exc
        except TimedOut as exc:
            if _answer_lost(exc):
                raise TelegramDeliveryError("Telegram's answer did not come in time", uncertain=True) from exc
            raise TelegramDeliveryError(f"Telegram did not take the message: {exc}") from exc
        except TelegramError as exc:
            raise TelegramDeliveryError(f"Telegram did not accept the message: {exc}") from exc

    async def _retrying(self, action: Callable[[], Awaitable[T]]) -> T:
        result, _ = await self._retrying_counted(action)
        return result

    async def _retrying_counted(self, action: Callable[[], Awaitable[T]], *,
                                resend_after_timeout: bool = True) -> tuple[T, int]:
        """Run `action`, retrying network errors and flood waits with bounded backoff.

        Without `resend_after_timeout`, a request whose answer timed out after it was sent
        is not repeated: Telegram may have acted on it (a message would arrive twice).
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                return await action(), attempt
            except (BadRequest, Forbidden):
                raise  # the request itself is wrong or the user blocked the bot: no retry
            except TimedOut as exc:
                if (not resend_after_timeout and _answer_lost(exc)) or attempt > self._settings.send_retries:
                    raise
                delay = self._settings.retry_backoff_seconds * 2 ** (attempt - 1)
                log.warning("telegram: timed out; retrying in %.1fs (attempt %d)", delay, attempt)
            except RetryAfter as exc:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PTBDeprecationWarning)
                    delay = _seconds(exc.retry_after)
                if attempt > self._settings.send_retries or delay > MAX_RETRY_AFTER_SECONDS:
                    raise
                log.warning("telegram: flood control, waiting %.0fs (attempt %d)", delay, attempt)
            except NetworkError as exc:
                if attempt > self._settings.send_retries:
                    raise
                delay = self._settings.retry_backoff_seconds * 2 ** (attempt - 1)
                log.warning("telegram: %s; retrying in %.1fs (attempt %d)", exc, delay, attempt)
            await self._clock.sleep(delay)

    async def _record(self, chat: ChatRef, message_id: int, kind: str, part: int, parts: int,
                      attempts: int) -> None:
        await self._db.execute(
            "INSERT INTO telegram_sent(user_key, chat_id, message_id, kind, part, parts, attempts,"
            " sent_at) VALUES (?,?,?,?,?,?,?,?)",
            (chat.user_key, chat.chat_id, message_id, kind, part, parts, attempts,
             self._clock.now().isoformat()),
        )

    def _forget_typing_task(self, task: asyncio.Task[None]) -> None:
        for chat_id, known in list(self._typing_tasks.items()):
            if known is task:
                del self._typing_tasks[chat_id]

    async def _chat_action(self, chat: ChatRef) -> None:
        """At most one "typing…" per chat per refresh period, however often it is asked for."""
        now = self._clock.now()
        last = self._typing_sent.get(chat.chat_id)
        if last is not None and (now - last).total_seconds() < TYPING_REFRESH_SECONDS:
            return
        self._typing_sent[chat.chat_id] = now
        await self.application.bot.send_chat_action(int(chat.chat_id), ChatAction.TYPING)

    def _stop_typing(self, chat: ChatRef) -> None:
        task = self._typing_tasks.pop(chat.chat_id, None)
        if task is not None:
            task.cancel()

    async def _keep_typing(self, chat: ChatRef) -> None:
        started = self._clock.now()
        while (self._clock.now() - started).total_seconds() < TYPING_KEEPALIVE_SECONDS:
            await self._clock.sleep(TYPING_REFRESH_SECONDS)
            with contextlib.suppress(TelegramError):
                await self._chat_action(chat)

    async def _close_abandoned_approvals(self) -> None:
        """Approvals whose turn ended with the shutdown: show what the broker recorded."""
        for request in list(self._open_approvals.values()):
            outcome = await self._assistant.broker.status(request.id)
            if outcome is not ApprovalOutcome.PENDING and request.message_id is not None:
                try:
                    await self.show_approval_outcome(request, outcome)
                except TelegramError as exc:
                    log.warning("telegram: could not close approval %s…: %s", request.id[:6], exc)

    async def _set_commands(self) -> None:
        commands = [
            BotCommand(name, (help_text or name)[:256])
            for name, help_text in self._assistant.commands.items()
            if _COMMAND_NAME.match(name)
        ]
        try:
            await self.application.bot.set_my_commands(commands)
        except TelegramError as exc:
            log.warning("telegram: could not set the command menu: %s", exc)

    # -- webhook -----------------------------------------------------------------------
    async def _start_webhook(self) -> None:
        settings = self._settings
        assert settings.webhook_url is not None and settings.webhook_secret is not None
        path = urlsplit(settings.webhook_url).path or "/"
        server = web.Application(client_max_size=MAX_WEBHOOK_BODY_BYTES)
        server.router.add_post(path, self._on_webhook)
        runner = web.AppRunner(server, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, settings.webhook_listen, settings.webhook_port).start()
        self._webhook_runner = runner
        await self._retrying(lambda: self.application.bot.set_webhook(
            settings.webhook_url or "",
            allowed_updates=list(ALLOWED_UPDATES),
            secret_token=settings.webhook_secret.get_secret_value() if settings.webhook_secret else None,
        ))

    @property
    def webhook_port(self) -> int | None:
        """The port the webhook server listens on (useful when configured as 0)."""
        runner = self._webhook_runner
        if runner is None or not runner.addresses:
            return None
        return int(runner.addresses[0][1])

    async def _on_webhook(self, request: web.Request) -> web.Response:
        secret = self._settings.webhook_secret
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
        if secret is None or not hmac.compare_digest(given.encode(), secret.get_secret_value().encode()):
            return web.Response(status=403, text="wrong secret token")
        body = await request.read()
        item: Any
        try:
            item = json.loads(body)
        except ValueError:
            return web.Response(status=400, text="not JSON")
        if not _parses(item):
            # Answered 200 so Telegram does not redeliver something we can never read.
            log.warning("telegram: an unreadable webhook update was skipped")
            return web.Response(text="skipped")
        update = Update.de_json(item, self.application.bot)
        if not await self._take(update):
            return web.Response(status=503, text="not stored; send it again")  # Telegram retries
        return web.Response(text="ok")


def approval_buttons(request: ApprovalRequest) -> list[list[InlineKeyboardButton]]:
    """One button per row, so a long "always" label (and any later button) fits a phone."""
    rows = [[InlineKeyboardButton("✅ Approve once", callback_data=callback_data(request.id, True))]]
    always = always_label(request)
    if always is not None:
        rows.append([InlineKeyboardButton(always[:64], callback_data=callback_data(request.id, True, True))])
    rows.append([InlineKeyboardButton("❌ Deny", callback_data=callback_data(request.id, False))])
    if request.needs_full_view(MAX_DESCRIPTION_CHARS):
        rows.append([InlineKeyboardButton(SHOW_ALL, callback_data=f"{SHOW_ALL_VERB}:{request.id}")])
    return rows


def _approval_part(request: ApprovalRequest) -> RenderedPart:
    minutes = max(1, round((request.expires_at - request.created_at).total_seconds() / 60))
    part = plain_with_bold_header(f"⚠️ {APPROVAL_HEADER}", request.description)
    return append_line(part, APPROVAL_FOOTER.format(minutes=minutes))


def _chat_of(update: Update, user: User) -> ChatRef:
    effective_chat = update.effective_chat
    kind = (ChatKind.UNKNOWN if effective_chat is None
            else ChatKind.PRIVATE if effective_chat.type == effective_chat.PRIVATE else ChatKind.GROUP)
    return ChatRef(Platform.TELEGRAM, str(effective_chat.id if effective_chat else user.id), str(user.id), kind)


def _source(update: Update) -> str:
    """The update's name in the inbox: a redelivered update is recognised by it."""
    return f"telegram:{update.update_id}"


def _command_for_another_bot(message: Message, bot_username: str | None) -> bool:
    first = next(iter(message.entities), None)
    return (
        first is not None and first.type == MessageEntityType.BOT_COMMAND and first.offset == 0
        and parse_command(message, bot_username) is None
    )


def _transient(exc: TelegramError) -> bool:
    """A failure that asking again later can cure: network trouble and flood waits, not a refusal."""
    return isinstance(exc, RetryAfter) or (isinstance(exc, NetworkError) and not isinstance(exc, BadRequest))


def _answer_lost(exc: TimedOut) -> bool:
    """The request went out but its answer did not come: Telegram may have acted on it."""
    return isinstance(exc, AnswerTimedOut)


def _is_live(location: TelegramLocation) -> bool:
    with warnings.catch_warnings():
        # PTB 22.2+ warns that live_period will become a timedelta; either is truthy when set.
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        return bool(location.live_period)


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


__all__ = [
    "TelegramAdapter",
    "TelegramDeliveryError",
    "approval_buttons",
    "callback_data",
    "parse_callback_data",
    "parse_command",
]
