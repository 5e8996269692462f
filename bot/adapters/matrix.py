"""The Matrix adapter: matrix-nio with end-to-end encryption (vodozemac), translate only.

Room events from allowlisted users become InboundEvents for `Assistant.handle`; reactions
and yes/no replies on approval messages become `Assistant.decide` calls. Everything the
bot puts into a room goes through `_put`, which encrypts whenever the room is encrypted
(asking the server when unsure) and never falls back to plaintext.

Device keys, Olm/Megolm sessions and the sync token live in `MATRIX_STORE_PATH`; the
device id is kept there too, so a restart logs in as the same device and still decrypts.
The sync token is saved only after every event of its sync was handled (stored in the
core's inbox), never before as nio would: a crash makes the homeserver send them again.
A media event is stored unfetched (a FileToFetch holding its URL and keys) and downloaded
by its chat's worker through `fetch`, so one slow download holds up no other room.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
from nio import (
    Api,
    AsyncClient,
    AsyncClientConfig,
    BadEvent,
    Event,
    InviteMemberEvent,
    JoinedMembersError,
    JoinError,
    LoginError,
    MatrixInvitedRoom,
    MatrixRoom,
    MegolmEvent,
    RoomGetStateEventError,
    RoomSendResponse,
    SyncError,
    SyncResponse,
    UnknownToDeviceEvent,
    WhoamiError,
)

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES, EDIT_NOT_READ, always_label
from bot.adapters.matrix_cross_signing import CrossSigning, CrossSigningOutcome, CrossSigningSecrets
from bot.adapters.matrix_key_verification import KeyVerifications
from bot.adapters.matrix_location import (
    BEACON_INFO_TYPES,
    BEACON_TYPES,
    BadLocation,
    beacon_info_is_live,
    location_from_beacon,
    location_from_message,
)
from bot.adapters.matrix_media import (
    MatrixMediaError,
    MediaTooLarge,
    audio_filename,
    check_declared,
    download,
    media_handle,
    media_ref,
    mime_type_of,
    ref_of_handle,
)
from bot.adapters.matrix_render import (
    CHUNK_CHARS,
    NO_PREVIEWS,
    render_markdown,
    render_with_literals,
    split_text,
    with_receipts,
)
from bot.adapters.matrix_store import ApprovalMessages
from bot.clock import Clock
from bot.config import MatrixSettings
from bot.core.approvals import ApprovalOutcome, ApprovalRequest, DecisionResult
from bot.core.assistant import Assistant
from bot.core.events import (
    ApprovalDecision,
    ChatKind,
    ChatRef,
    CommandMessage,
    FileKind,
    FileToFetch,
    InboundEvent,
    LocationShared,
    MessageKind,
    OutboundMessage,
    Platform,
    Progress,
    SentMessage,
    TextMessage,
)
from bot.errors import ConfigError, DeliveryError, FetchError, MayordomoError
from memory.db import Database

log = logging.getLogger(__name__)

APPROVE_KEY = "✅"
DENY_KEY = "❌"
ALWAYS_KEY = "♾️"
_ALWAYS_KEYS = frozenset({"♾", "🔁"})
_ALWAYS_WORDS = frozenset({"always", "siempre", "a"})
_APPROVE_KEYS = frozenset({"✅", "✔", "☑", "👍", "🆗"})
_DENY_KEYS = frozenset({"❌", "✖", "❎", "👎", "🚫"})
_YES_WORDS = frozenset({"yes", "y", "si", "sí", "ok", "okay", "vale", "approve", "approved", "adelante"})
_NO_WORDS = frozenset({"no", "n", "nope", "deny", "denied", "cancel", "cancela", "cancelar"})
_SEEN_EVENTS_KEPT = 4_000
# An approval's full view (exact arguments) takes at most this many events.
_FULL_VIEW_EVENTS = 5
_TYPING_MS = 30_000
_RESYNC_BACKOFF_SECONDS = 5.0
_PREFLIGHT_SECONDS = 15.0

REFUSAL = "Sorry, I only answer the people I work for. / Lo siento, solo atiendo a mis usuarios."
UNSUPPORTED = ("I can read text, commands, voice notes, locations, photos and files here; that kind of "
               "message is not supported yet.")
FILE_TOO_BIG = ("That file is too large for me ({size:,} bytes; the limit is {limit:,}, "
                "MATRIX_MAX_FILE_BYTES). I did not keep it.")
MEDIA_UNREADABLE = "I could not read that {what}: {reason}. I did not keep it."
# nio hands over an event that fails its schema (a file without its key) as a BadEvent: it is
# routed too, so its sender hears why it was not read.
_ROOM_EVENTS = (Event, BadEvent)
# What each media msgtype becomes for the core, and the noun that names it in a refusal.
_MEDIA_KINDS = {"m.audio": FileKind.VOICE, "m.image": FileKind.PHOTO, "m.file": FileKind.DOCUMENT}
_WHAT = {FileKind.VOICE: "audio", FileKind.PHOTO: "photo", FileKind.DOCUMENT: "file"}


class MatrixSendError(MayordomoError):
    """An event could not be put into a room (encryption or homeserver failure); `code` is
    the homeserver's errcode when it answered with one."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


# Answers after which sending the same event again cannot succeed.
_PERMANENT_SEND_ERRORS = frozenset({"M_FORBIDDEN", "M_NOT_FOUND", "M_BAD_JSON", "M_NOT_JSON", "M_TOO_LARGE",
                                    "M_UNKNOWN_TOKEN", "M_MISSING_TOKEN"})


WITHHELD_TYPES = frozenset({"m.room_key.withheld", "org.matrix.room_key.withheld"})
MAX_REMEMBERED_WITHHELD = 1_000


@dataclass
class _Undecryptable:
    room_id: str
    event: MegolmEvent
    syncs: int = 0


def _refusal(what: str, exc: MatrixMediaError) -> str:
    """What the sender is told about media that was not read."""
    if isinstance(exc, MediaTooLarge):
        return FILE_TOO_BIG.format(size=exc.size, limit=exc.limit)
    return MEDIA_UNREADABLE.format(what=what, reason=exc)


def _variant_free(key: str) -> str:
    """Reaction keys arrive with or without the emoji variation selector."""
    return key.replace("\ufe0f", "").strip()


def approval_answer(text: str) -> tuple[bool, bool] | None:
    """(approve, always) from a reply or reaction key; None for anything else."""
    word = re.sub(r"[^\w]+", " ", text.lower()).strip()
    if word in _ALWAYS_WORDS or _variant_free(text) in _ALWAYS_KEYS:
        return True, True
    answer = yes_or_no(text)
    return None if answer is None else (answer, False)


def yes_or_no(text: str) -> bool | None:
    """'Sí.' -> True, 'no!' -> False, anything else -> None."""
    word = re.sub(r"[^\w✅❌]+", " ", text.lower()).strip()
    key = _variant_free(text)
    if word in _YES_WORDS or key in _APPROVE_KEYS:
        return True
    if word in _NO_WORDS or key in _DENY_KEYS:
        return False
    return None


def strip_reply_fallback(body: str) -> str:
    """Drop the '> <@user> quoted text' block clients prepend to replies."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith("> "):
        return body
    index = 0
    while index < len(lines) and lines[index].startswith(">"):
        index += 1
    return "\n".join(lines[index:]).strip()


def fingerprint(ed25519: str) -> str:
    """The device's Ed25519 key in groups of four, as Element shows it."""
    return " ".join(ed25519[i:i + 4] for i in range(0, len(ed25519), 4))


class MatrixAdapter:
    platform = Platform.MATRIX

    def __init__(self, settings: MatrixSettings, assistant: Assistant, db: Database, clock: Clock) -> None:
        self._settings = settings
        self._assistant = assistant
        self._clock = clock
        self._approvals = ApprovalMessages(db)
        self._allowed = frozenset(settings.allowed_users)
        self._client: AsyncClient | None = None
        self._sync_task: asyncio.Task[None] | None = None
        self._encryption_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._joining: set[str] = set()
        self._invited: set[str] = set()  # joining rooms whose timeline reached our invite
        self._refused: set[str] = set()
        self._undecryptable: dict[str, _Undecryptable] = {}
        self._threads: dict[str, tuple[str, str]] = {}  # room -> (thread root, latest event in it)
        self._withheld: dict[str, str] = {}  # megolm session id -> the code its sender gave
        self._open_approvals: dict[str, ApprovalRequest] = {}
        self._progress: dict[str, tuple[int, str]] = {}  # room -> (turn id, status notice event id)
        self._verifications: KeyVerifications | None = None  # the owner verifying the bot, from start()
        self._stopped = False
        self.cross_signing = CrossSigningOutcome.FAILED  # what the start-up bootstrap did

    # -- lifecycle -----------------------------------------------------------------
    @property
    def device_id(self) -> str:
        return self._require_client().device_id

    @property
    def user_id(self) -> str:
        return self._require_client().user_id

    async def start(self) -> None:
        """Log in, load the key store, sync once, register with the core, then sync forever."""
        client = await self._login()
        password = self._settings.password.get_secret_value() if self._settings.password else None
        signer = CrossSigning(client, CrossSigningSecrets(Path(self._settings.store_path)), password,
                              reset=self._settings.cross_signing_reset)
        self.cross_signing = await signer.bootstrap()
        self._verifications = KeyVerifications(client, self._put, self._clock, self._allowed, signer.master_public)
        client.add_event_callback(self._on_invite, InviteMemberEvent)  # type: ignore[arg-type]
        client.add_to_device_callback(self._on_to_device, UnknownToDeviceEvent)  # type: ignore[arg-type]
        # Before the first sync: a resumed one stores media events for the workers to fetch.
        self._assistant.add_file_fetcher(self.platform, self)
        resumed = bool(client.loaded_sync_token)
        if resumed:
            # Events that arrived while we were down are answered; a first-ever sync is history.
            client.add_event_callback(self._on_room_event, _ROOM_EVENTS)  # type: ignore[arg-type]
        first = await client.sync(timeout=0, full_state=True)
        if isinstance(first, SyncError):
            await client.close()
            raise ConfigError(f"MATRIX_HOMESERVER: the first sync failed: {first.message}")
        self._save_sync_token(first.next_batch)
        if not resumed:
            client.add_event_callback(self._on_room_event, _ROOM_EVENTS)  # type: ignore[arg-type]
        client.add_response_callback(self._after_sync, SyncResponse)  # type: ignore[arg-type]
        self._assistant.add_messenger(self)
        self._sync_task = asyncio.create_task(self._sync_loop(), name="matrix-sync")
        identity = client.olm.account.identity_keys["ed25519"] if client.olm else "?"
        # The fingerprint is the by-hand check that it is really this bot, for clients that
        # cannot verify it in the chat (Element: the bot's user info -> Verify).
        signed = (f"signed by the bot's cross-signing identity (master key {signer.master_public})"
                  if signer.master_public else "not signed by a cross-signing identity")
        log.info("Matrix: %s on device %s, session key (fingerprint) %s, %s; verify it from Element (its user "
                 "info -> Verify, emoji shown in the chat) or compare the fingerprint with the session Element "
                 "lists for it", client.user_id, client.device_id, fingerprint(identity), signed)

    async def stop_receiving(self) -> None:
        """Sync no more (a graceful stop lets running turns finish after this)."""
        if self._sync_task is not None:
            self._sync_task.cancel()
            await asyncio.gather(self._sync_task, return_exceptions=True)
            self._sync_task = None

    def _save_sync_token(self, token: str) -> None:
        client = self._require_client()
        if client.store is not None and token:
            client.store.save_sync_token(token)

    async def stop(self) -> None:
        """Stop syncing, cancel running turns, close the client; safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        if self._sync_task is not None:
            self._sync_task.cancel()
            await asyncio.gather(self._sync_task, return_exceptions=True)
            self._sync_task = None
        await self._close_open_approvals()
        if self._verifications is not None:
            await self._verifications.close()
        if self._client is not None:
            await self._client.close()

    async def _close_open_approvals(self) -> None:
        """Turns cancelled by the shutdown resolved their approvals: say so on the messages.

        One still pending (the turn was stopped before it began to wait) is cancelled and
        edited by `Assistant.start` on the next run.
        """
        for request in list(self._open_approvals.values()):
            try:
                outcome = await self._assistant.broker.status(request.id)
                if outcome is not ApprovalOutcome.PENDING:
                    await self.show_approval_outcome(request, outcome)
            except Exception:
                log.exception("Matrix: approval %s… not updated at shutdown", request.id[:6])

    async def _login(self) -> AsyncClient:
        settings = self._settings
        if not settings.enabled or not settings.homeserver or not settings.user_id:
            raise ConfigError(
                "MATRIX_HOMESERVER, MATRIX_USER_ID and MATRIX_PASSWORD or MATRIX_ACCESS_TOKEN are needed"
            )
        await self._check_homeserver(settings.homeserver)
        store = Path(settings.store_path)
        device_id = settings.device_id or self._prepare_store(store, settings.user_id) or ""
        # Tokens are saved by `_after_sync`, once the sync's events are stored.
        config = AsyncClientConfig(store_sync_tokens=False, encryption_enabled=True)
        client = AsyncClient(settings.homeserver, settings.user_id, device_id=device_id,
                             store_path=str(store), config=config)
        try:
            if settings.access_token is not None and settings.access_token.get_secret_value():
                await self._login_with_token(client, settings.access_token.get_secret_value(), device_id)
            else:
                assert settings.password is not None
                response = await client.login(settings.password.get_secret_value(),
                                              device_name=settings.device_name)
                if isinstance(response, LoginError):
                    raise ConfigError(f"MATRIX_PASSWORD: the homeserver refused the login ({response.message})")
            if client.should_upload_keys:
                await client.keys_upload()
        except BaseException:
            await client.close()
            raise
        self._save_device(store, client.user_id, client.device_id)
        if client.store is not None:
            client.loaded_sync_token = client.store.load_sync_token() or ""
        self._client = client
        return client

    @staticmethod
    async def _check_homeserver(homeserver: str) -> None:
        """Fail fast with a clear line: nio itself would retry an unreachable server forever."""
        try:
            async with httpx.AsyncClient(timeout=_PREFLIGHT_SECONDS) as http:
                response = await http.get(f"{homeserver.rstrip('/')}/_matrix/client/versions")
        except httpx.HTTPError as exc:
            raise ConfigError(f"MATRIX_HOMESERVER: cannot reach {homeserver} ({exc or type(exc).__name__})") from None
        if response.status_code != 200:
            raise ConfigError(
                f"MATRIX_HOMESERVER: {homeserver} does not look like a Matrix homeserver "
                f"(HTTP {response.status_code} for /_matrix/client/versions)"
            )

    async def _login_with_token(self, client: AsyncClient, token: str, device_id: str) -> None:
        client.access_token = token
        who = await client.whoami()
        if isinstance(who, WhoamiError):
            raise ConfigError(f"MATRIX_ACCESS_TOKEN: the homeserver rejected it ({who.message})")
        if who.user_id != self._settings.user_id:
            raise ConfigError(f"MATRIX_USER_ID: the access token belongs to {who.user_id}")
        token_device = who.device_id or device_id
        if not token_device:
            raise ConfigError("MATRIX_DEVICE_ID: the homeserver did not say which device the token is for")
        if device_id and token_device != device_id:
            raise ConfigError(
                f"MATRIX_DEVICE_ID: the access token is for device {token_device}, the key store "
                f"holds {device_id}; use a token of that device or a fresh MATRIX_STORE_PATH"
            )
        client.restore_login(who.user_id, token_device, token)

    @staticmethod
    def _save_device(store: Path, user_id: str, device_id: str) -> None:
        saved = store / "device.json"
        saved.write_text(json.dumps({"user_id": user_id, "device_id": device_id}), encoding="utf-8")

    @staticmethod
    def _prepare_store(store: Path, user_id: str) -> str | None:
        """Create the store folder (owner-only) and return the device id kept in it, if any."""
        store.mkdir(parents=True, exist_ok=True, mode=0o700)
        saved = store / "device.json"
        if not saved.exists():
            return None
        try:
            data = json.loads(saved.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("user_id") != user_id:
            return None
        device = data.get("device_id")
        return device if isinstance(device, str) else None

    async def _sync_loop(self) -> None:
        client = self._require_client()
        timeout_ms = int(self._settings.sync_timeout_seconds * 1000)
        while True:
            try:
                await client.sync_forever(timeout=timeout_ms, full_state=False)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Matrix sync failed; retrying in %.0f s", _RESYNC_BACKOFF_SECONDS)
                await self._clock.sleep(_RESYNC_BACKOFF_SECONDS)

    def _no_longer_private(self, room_id: str) -> bool:
        room = self._require_client().rooms.get(room_id)
        return room is not None and room.member_count > 2

    def _require_client(self) -> AsyncClient:
        if self._client is None:
            raise ConfigError("the Matrix adapter is not started")
        return self._client

    # -- Messenger -------------------------------------------------------------------
    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        if chat.kind is ChatKind.PRIVATE and self._no_longer_private(chat.chat_id):
            # The owner's direct room gained (or invited) someone since it was last seen: a diary
            # or an answer meant for the owner alone must not reach them.
            reason = f"the room {chat.chat_id} is no longer a direct room (others joined or were invited)"
            if message.delivery_id:
                raise DeliveryError(f"Matrix: {reason}", permanent=True)
            log.error("Matrix: message not sent: %s", reason)
            return None
        text = message.text
        if message.suggestions:
            text += "\n\n" + " · ".join(f"_{s}_" for s in message.suggestions)
        msgtype = "m.notice" if message.kind is MessageKind.NOTICE else "m.text"
        last: str | None = None
        try:
            chunks = split_text(text)
            for index, chunk in enumerate(chunks, start=1):
                rendered = render_markdown(chunk)
                if index == len(chunks):
                    rendered = with_receipts(rendered, message.receipts)
                content = rendered.content(msgtype)
                if message.kind is not MessageKind.SCHEDULED:
                    content = self._in_thread(chat.chat_id, content)
                # One transaction id per part and delivery: the homeserver keeps the first event
                # for a repeated id, so a retry (after a timeout, or a later part's failure)
                # never shows a part twice.
                txn_id = f"{message.delivery_id}.{index}" if message.delivery_id else None
                last = await self._put(chat.chat_id, "m.room.message", content, txn_id)
                self._thread_moved(chat.chat_id, last)
        except MatrixSendError as exc:
            if message.delivery_id:  # the outbox retries it, safely
                raise DeliveryError(f"Matrix: {exc}", permanent=exc.code in _PERMANENT_SEND_ERRORS) from exc
            log.error("Matrix: message to %s not sent: %s", chat.chat_id, exc)
            return None
        finally:
            await self._typing_off(chat.chat_id)
            if message.kind is not MessageKind.NOTICE:
                await self._clear_progress(chat.chat_id)
        return SentMessage(chat, last) if last else None

    async def typing(self, chat: ChatRef) -> None:
        await self._require_client().room_typing(chat.chat_id, True, timeout=_TYPING_MS)

    async def show_progress(self, progress: Progress) -> None:
        """One status notice per turn, edited as the turn moves on, and to "done" when it answers.

        A notice never notifies in Element's default push rules, and edits do not either.
        """
        room_id = progress.chat.chat_id
        content = {"msgtype": "m.notice", "body": f"⏳ {progress.text}"}
        shown = self._progress.get(room_id)
        try:
            if shown is None or shown[0] != progress.turn_id:
                event_id = await self._put(room_id, "m.room.message", self._in_thread(room_id, content))
                self._progress[room_id] = (progress.turn_id, event_id)
                return
            await self._put(room_id, "m.room.message", {
                **content, "body": f"* {content['body']}", "m.new_content": content,
                "m.relates_to": {"rel_type": "m.replace", "event_id": shown[1]},
            })
        except MatrixSendError as exc:
            log.info("Matrix: progress not shown: %s", exc)

    def _in_thread(self, room_id: str, content: dict[str, Any]) -> dict[str, Any]:
        """`content` placed in the thread the user is writing in, if any (m.thread, MSC3440)."""
        thread = self._threads.get(room_id)
        if thread is None:
            return content
        root, latest = thread
        return {**content, "m.relates_to": {"rel_type": "m.thread", "event_id": root, "is_falling_back": True,
                                            "m.in_reply_to": {"event_id": latest}}}

    def _thread_moved(self, room_id: str, event_id: str) -> None:
        thread = self._threads.get(room_id)
        if thread is not None:
            self._threads[room_id] = (thread[0], event_id)

    async def _clear_progress(self, room_id: str) -> None:
        shown = self._progress.pop(room_id, None)
        if shown is None:
            return
        content = {"msgtype": "m.notice", "body": "✓"}
        try:
            await self._put(room_id, "m.room.message", {
                **content, "body": "* ✓", "m.new_content": content,
                "m.relates_to": {"rel_type": "m.replace", "event_id": shown[1]},
            })
        except MatrixSendError as exc:
            log.info("Matrix: progress notice not closed: %s", exc)

    async def present_approval(self, request: ApprovalRequest) -> SentMessage | None:
        room_id = request.chat.chat_id
        zone = self._assistant.deps.settings.core.zone
        expires = request.expires_at.astimezone(zone).strftime("%H:%M")
        always = always_label(request)
        how = (f"React {APPROVE_KEY} to approve once, {ALWAYS_KEY} for “{{always}}” or {DENY_KEY} to deny "
               "(or reply yes / always / no to this message)" if always is not None else
               f"React {APPROVE_KEY} to approve or {DENY_KEY} to deny (or reply yes / no to this message)")
        rendered = render_with_literals(
            "**Approval needed:** {description}\n\n" + how + f". Expires at {expires} if you do not answer.",
            description=request.description, always=(always or "").removeprefix("♾️ "),
        )
        try:
            event_id = await self._put(room_id, "m.room.message", self._in_thread(room_id, rendered.content()))
            self._thread_moved(room_id, event_id)
        except MatrixSendError as exc:
            log.error("Matrix: approval %s… not shown: %s", request.id[:6], exc)
            return None
        await self._approvals.add(event_id, request.id, room_id, self._clock.now())
        for key in (APPROVE_KEY, ALWAYS_KEY, DENY_KEY) if always is not None else (APPROVE_KEY, DENY_KEY):
            content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": event_id, "key": key}}
            try:
                reaction_id = await self._put(room_id, "m.reaction", content)
            except MatrixSendError as exc:
                # A reply still works; the request is shown and live.
                log.warning("Matrix: could not add %s to approval %s…: %s", key, request.id[:6], exc)
                continue
            await self._approvals.add_reaction(event_id, reaction_id)
        if request.needs_full_view(CHUNK_CHARS):
            await self._show_all(request, event_id)
        await self._typing_off(room_id)
        self._open_approvals[request.id] = replace(request, message_id=event_id)
        return SentMessage(request.chat, event_id)

    async def _show_all(self, request: ApprovalRequest, approval_event: str) -> None:
        """The whole request, exact arguments included, as plain notices replying to the approval."""
        text = request.full_text()
        chunks = split_text(text)
        shown = chunks[:_FULL_VIEW_EVENTS]
        if len(chunks) > len(shown):
            missing = len(text) - sum(len(chunk) for chunk in shown)
            shown[-1] += f"\n\n✂️ {missing} more characters are not shown; if unsure, deny."
        for number, chunk in enumerate(shown, start=1):
            content = {"msgtype": "m.notice", NO_PREVIEWS: [],
                       "body": f"Everything this approval would run ({number}/{len(shown)}):\n\n{chunk}",
                       "m.relates_to": {"m.in_reply_to": {"event_id": approval_event}}}
            try:
                await self._put(request.chat.chat_id, "m.room.message", content)
            except MatrixSendError as exc:
                log.warning("Matrix: full view of approval %s… not shown: %s", request.id[:6], exc)
                return

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        self._open_approvals.pop(request.id, None)
        if not request.message_id:
            return
        room_id = request.chat.chat_id
        rendered = render_with_literals("{description}\n\n{outcome}", description=request.description,
                                        outcome=APPROVAL_OUTCOME_LABELS[outcome])
        content = {
            "msgtype": "m.text",
            "body": f"* {rendered.body}",
            "format": "org.matrix.custom.html",
            "formatted_body": f"* {rendered.html}",
            NO_PREVIEWS: [],
            "m.new_content": rendered.content(),
            "m.relates_to": {"rel_type": "m.replace", "event_id": request.message_id},
        }
        try:
            await self._put(room_id, "m.room.message", content)
        except MatrixSendError as exc:
            log.error("Matrix: approval %s… outcome not shown: %s", request.id[:6], exc)
        stored = await self._approvals.by_event(request.message_id)
        if stored is None:
            return
        client = self._require_client()
        for reaction_id in stored.reaction_event_ids:
            # The controls go away; a redaction carries no content, so it is never plaintext.
            await client.room_redact(room_id, reaction_id)
        await self._approvals.clear_reactions(request.message_id)

    # -- putting events into rooms (the only way out) ----------------------------------
    async def _put(self, room_id: str, event_type: str, content: dict[str, Any], txn_id: str | None = None) -> str:
        """Send one room event, encrypted whenever the room is (reactions excepted); its event id.

        Reactions go unencrypted, as Element sends them: an encrypted reaction looks like a new
        message to push rules and notifies, so each approval would buzz the phone three times.
        A reaction carries only an emoji key and the id it annotates.
        """
        client = self._require_client()
        if event_type != "m.reaction" and await self._must_encrypt(room_id):
            event_type, content = await self._encrypt(room_id, event_type, content)
        method, path, data = Api.room_send(client.access_token, room_id, event_type, content, txn_id or uuid4())
        # nio's public room_send never encrypts reactions; the raw send keeps one guarded path.
        response = await client._send(RoomSendResponse, method, path, data, (room_id,))
        if not isinstance(response, RoomSendResponse):
            raise MatrixSendError(f"{event_type} refused by the homeserver: {getattr(response, 'message', response)}",
                                  getattr(response, "status_code", None))
        return str(response.event_id)

    async def _must_encrypt(self, room_id: str) -> bool:
        """Known encrypted, or the server says so; unsure counts as encrypted."""
        client = self._require_client()
        room = client.rooms.get(room_id)
        if (room is not None and room.encrypted) or room_id in client.encrypted_rooms:
            return True
        # Encryption may have been switched on since our last sync: ask (it is never switched off).
        answer = await client.room_get_state_event(room_id, "m.room.encryption")
        if isinstance(answer, RoomGetStateEventError):
            if answer.status_code == "M_NOT_FOUND":
                return False
            raise MatrixSendError(f"cannot tell whether {room_id} is encrypted: {answer.message}")
        return True

    async def _encrypt(self, room_id: str, event_type: str, content: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        client = self._require_client()
        room = client.rooms.get(room_id)
        if room is None or client.olm is None:
            raise MatrixSendError(f"{room_id} is encrypted but its state or our keys are not loaded")
        if not room.encrypted:
            raise MatrixSendError(f"{room_id} turned encrypted after our last sync; not sending until it syncs")
        try:
            async with self._encryption_locks[room_id]:
                if not room.members_synced:
                    members = await client.joined_members(room_id)
                    if isinstance(members, JoinedMembersError):
                        raise MatrixSendError(f"cannot list members of {room_id}: {members.message}")
                if client.should_query_keys:
                    await client.keys_query()
                # nio invalidates the session when members or their devices change.
                if client.olm.should_share_group_session(room_id):
                    # Trust on first use: every device of the room's members gets the key.
                    await client.share_group_session(room_id, ignore_unverified_devices=True)
            encrypted_type, encrypted = client.encrypt(room_id, event_type, content)
        except MatrixSendError:
            raise
        except Exception as exc:
            raise MatrixSendError(f"encryption failed in {room_id}: {exc}") from exc
        return encrypted_type, dict(encrypted)

    async def _typing_off(self, room_id: str) -> None:
        try:
            await self._require_client().room_typing(room_id, False)
        except Exception:
            log.debug("typing off failed in %s", room_id, exc_info=True)

    # -- inbound ---------------------------------------------------------------------
    async def _on_invite(self, room: MatrixInvitedRoom, event: InviteMemberEvent) -> None:
        client = self._require_client()
        if event.state_key != client.user_id or event.membership != "invite":
            return
        if room.room_id in self._joining or room.room_id in client.rooms:
            return
        try:
            if event.sender in self._allowed:
                self._joining.add(room.room_id)
                joined = await client.join(room.room_id)
                if isinstance(joined, JoinError):
                    self._joining.discard(room.room_id)
                    log.warning("Matrix: could not join %s: %s", room.room_id, joined.message)
            else:
                log.info("Matrix: invite from %s to %s declined (not allowlisted)", event.sender, room.room_id)
                await client.room_leave(room.room_id)
        except Exception:
            log.exception("Matrix: invite handling failed for %s", room.room_id)

    async def _on_room_event(self, room: MatrixRoom, event: Event | BadEvent) -> None:
        """Every timeline event; never raises (an exception would stop nio's sync loop)."""
        if event.event_id in self._seen:
            return
        self._seen[event.event_id] = None
        while len(self._seen) > _SEEN_EVENTS_KEPT:
            self._seen.popitem(last=False)
        try:
            await self._route(room, event)
        except Exception:
            log.exception("Matrix: event %s in %s could not be handled", event.event_id, room.room_id)

    async def _route(self, room: MatrixRoom, event: Event | BadEvent) -> None:
        client = self._require_client()
        sender = event.sender
        if room.room_id in self._joining:
            # The timeline of a room we just joined starts with its history: not for us, but
            # what came after our invite was sent to us (Element sends the first message of a
            # new DM right after inviting, maybe while we were down).
            raw = event.source
            if raw.get("type") == "m.room.member" and raw.get("state_key") == client.user_id:
                membership = (raw.get("content") or {}).get("membership")
                if membership == "invite":
                    self._invited.add(room.room_id)
                elif membership == "join" and sender == client.user_id:
                    self._joining.discard(room.room_id)
                    self._invited.discard(room.room_id)
                return
            if room.room_id not in self._invited:
                return
        if sender == client.user_id:
            return
        allowed = sender in self._allowed
        kind = ChatKind.PRIVATE if room.member_count <= 2 else ChatKind.GROUP
        chat = ChatRef(Platform.MATRIX, room.room_id, sender, kind)
        if isinstance(event, MegolmEvent):
            # In a group it may not have been meant for the bot: only a direct room hears about it.
            if allowed and room.member_count <= 2:
                self._undecryptable[event.event_id] = _Undecryptable(room.room_id, event)
            return
        source: dict[str, Any] = event.source
        event_type = source.get("type", "")
        content = source.get("content") or {}
        if not isinstance(content, dict):
            return
        if KeyVerifications.claims(event_type, content):
            # Protocol between the clients, never a message for the core (strangers included).
            if self._verifications is not None:
                await self._verifications.on_event(room, sender, event.event_id, event_type, content,
                                                   source.get("origin_server_ts"))
            return
        if event_type == "m.reaction":
            if allowed:
                await self._on_reaction(chat, content)
            return
        if event_type in BEACON_INFO_TYPES:
            if allowed and source.get("state_key") == sender and not beacon_info_is_live(content):
                await self._assistant.receive(LocationShared(chat, None, live_ended=True))
            return
        if event_type in BEACON_TYPES:
            if allowed:
                await self._on_location(chat, event, content, beacon=True)
            return
        if event_type != "m.room.message":
            return
        relation = content.get("m.relates_to") or {}
        if relation.get("rel_type") == "m.replace":
            # An edit does not start a new turn (the first version was already acted on, and running
            # it again could repeat an action); silence would let the owner think the change was read.
            if sender in self._allowed and room.member_count <= 2 and content.get("msgtype") in ("m.text", "m.emote"):
                await self._receipt(room.room_id, event.event_id)
                await self.send(chat, OutboundMessage(EDIT_NOT_READ, MessageKind.NOTICE))
            return
        msgtype = content.get("msgtype")
        if not allowed:
            await self._refuse(room, sender, content)
            return
        # Answer where the message was written: in its thread, or in the main timeline.
        if relation.get("rel_type") == "m.thread" and isinstance(relation.get("event_id"), str):
            self._threads[room.room_id] = (relation["event_id"], event.event_id)
        else:
            self._threads.pop(room.room_id, None)
        if msgtype == "m.location":
            await self._on_location(chat, event, content, beacon=False)
        elif msgtype in ("m.text", "m.emote"):
            await self._on_text(room, chat, event, content)
        elif room.member_count > 2:
            return  # media in a group is not addressed to the bot
        elif msgtype in _MEDIA_KINDS:
            await self._on_media(chat, event, content, _MEDIA_KINDS[msgtype])
        elif msgtype != "m.notice":
            await self._receipt(room.room_id, event.event_id)
            await self.send(chat, OutboundMessage(UNSUPPORTED, MessageKind.ERROR))

    async def _on_text(self, room: MatrixRoom, chat: ChatRef, event: Event | BadEvent, content: dict[str, Any]) -> None:
        body = content.get("body")
        if not isinstance(body, str):
            return
        reply_to = ((content.get("m.relates_to") or {}).get("m.in_reply_to") or {}).get("event_id")
        text = strip_reply_fallback(body) if reply_to else body
        # While a verification waits for "they match", that answer is the verification's.
        if self._verifications is not None and await self._verifications.answer(
                room.room_id, event.sender, text, reply_to if isinstance(reply_to, str) else None):
            await self._receipt(room.room_id, event.event_id)
            return
        if reply_to:
            approval = await self._approvals.by_event(reply_to)
            answer = approval_answer(text)
            if approval is not None and approval.room_id == chat.chat_id and answer is not None:
                await self._receipt(room.room_id, event.event_id)
                await self._decide(chat, approval.request_id, *answer)
                return
        addressed, text = self._addressed(room, content, text)
        if not addressed:
            return
        await self._assistant.receive(self._command_or_text(chat, text, event.event_id), event.event_id)
        await self._receipt(room.room_id, event.event_id)

    @staticmethod
    def _command_or_text(chat: ChatRef, text: str, event_id: str) -> InboundEvent:
        stripped = text.strip()
        if len(stripped) > 1 and stripped[0] in "/!" and stripped[1].isalpha():
            name, _, argument = stripped[1:].partition(" ")
            return CommandMessage(chat, name.lower(), argument.strip())
        return TextMessage(chat, text, message_id=event_id)

    def _addressed(self, room: MatrixRoom, content: dict[str, Any], text: str) -> tuple[bool, str]:
        """Direct rooms always; groups only when the bot is mentioned (mention stripped)."""
        if room.member_count <= 2:
            return True, text
        if not self._settings.answer_in_groups:
            return False, text
        client = self._require_client()
        names = [client.user_id, client.user_id.split(":")[0].lstrip("@")]
        display = room.user_name(client.user_id)
        if display:
            names.append(display)
        mentions = content.get("m.mentions") or {}
        mentioned = isinstance(mentions, dict) and client.user_id in (mentions.get("user_ids") or [])
        lowered = text.lower()
        if not mentioned and not any(name.lower() in lowered for name in names):
            return False, text
        for name in sorted(names, key=len, reverse=True):
            match = re.match(rf"^\s*@?{re.escape(name)}\s*[:,]?\s*", text, re.IGNORECASE)
            if match:
                return True, text[match.end():]
        return True, text

    async def _on_media(self, chat: ChatRef, event: Event | BadEvent, content: dict[str, Any],
                        kind: FileKind) -> None:
        """A voice note, photo or file: checked as declared, then stored unfetched; the chat's
        worker downloads (and decrypts) it through `fetch`, so a slow one holds up no other room."""
        what = _WHAT[kind]
        try:
            ref = media_ref(content)
            check_declared(ref, self._settings.max_file_bytes)
        except MatrixMediaError as exc:
            await self._receipt(chat.chat_id, event.event_id)
            await self._refuse_media(chat, what, exc)
            return
        if kind is FileKind.VOICE:
            name, mime, caption = audio_filename(ref), ref.mime_type or "audio/ogg", ""
        else:
            name = ref.filename or f"{what}-{event.event_id.lstrip('$')[:12]}"
            fallback = "image/jpeg" if kind is FileKind.PHOTO else "application/octet-stream"
            mime, caption = mime_type_of(ref, name, fallback), ref.caption
        await self._assistant.receive(FileToFetch(chat, kind, media_handle(content), name, mime, caption,
                                                  event.event_id, ref.declared_size), event.event_id)
        await self._receipt(chat.chat_id, event.event_id)

    async def fetch(self, file: FileToFetch) -> bytes:
        """The bytes of a media message stored unfetched (the core's FileFetcher), decrypted when
        it came encrypted; FetchError says why not, in the words a refusal at sync time used."""
        try:
            return await download(self._require_client(), ref_of_handle(file.ref), self._settings.max_file_bytes)
        except MatrixMediaError as exc:
            # nio itself waits out rate limits and dropped connections; what is left is an answer.
            raise FetchError(_refusal(_WHAT[file.kind], exc)) from None

    async def _refuse_media(self, chat: ChatRef, what: str, exc: MatrixMediaError) -> None:
        log.info("Matrix: %s from %s not read: %s", what, chat.user_id, exc)
        await self.send(chat, OutboundMessage(_refusal(what, exc), MessageKind.ERROR))

    async def download_media(self, content: dict[str, Any]) -> bytes:
        """The bytes of a media message, decrypted when it came as an encrypted file."""
        return await download(self._require_client(), media_ref(content), self._settings.max_file_bytes)

    async def _on_location(self, chat: ChatRef, event: Event | BadEvent, content: dict[str, Any], *,
                           beacon: bool) -> None:
        now = self._clock.now()
        try:
            if beacon:
                location = location_from_beacon(content, event.server_timestamp, now)
            else:
                location = location_from_message(content, event.server_timestamp, now)
        except BadLocation as exc:
            log.info("Matrix: unreadable location from %s: %s", chat.user_id, exc)
            if not beacon:
                await self.send(chat, OutboundMessage(f"I could not read that location ({exc}).", MessageKind.ERROR))
            return
        if not beacon:
            await self._receipt(chat.chat_id, event.event_id)
        # Stored by the core; a location never starts a model turn.
        await self._assistant.receive(LocationShared(chat, location))

    async def _on_reaction(self, chat: ChatRef, content: dict[str, Any]) -> None:
        relation = content.get("m.relates_to") or {}
        if relation.get("rel_type") != "m.annotation":
            return
        if self._verifications is not None and await self._verifications.react(
                chat.chat_id, chat.user_id, str(relation.get("event_id", "")), str(relation.get("key", ""))):
            return
        key = _variant_free(str(relation.get("key", "")))
        if key in _APPROVE_KEYS:
            approve, always = True, False
        elif key in _ALWAYS_KEYS:
            approve, always = True, True
        elif key in _DENY_KEYS:
            approve, always = False, False
        else:
            return
        approval = await self._approvals.by_event(str(relation.get("event_id", "")))
        if approval is None or approval.room_id != chat.chat_id:
            return
        await self._decide(chat, approval.request_id, approve, always)

    async def _decide(self, chat: ChatRef, request_id: str, approve: bool, always: bool = False) -> None:
        result = await self._assistant.decide(ApprovalDecision(chat, request_id, approve, always))
        if result not in (DecisionResult.ACCEPTED, DecisionResult.ACCEPTED_ALWAYS):
            await self.send(chat, OutboundMessage(DECISION_NOTICES[result], MessageKind.NOTICE))

    async def _refuse(self, room: MatrixRoom, sender: str, content: dict[str, Any]) -> None:
        """One short refusal per stranger and process; nothing is stored."""
        if sender in self._refused or content.get("msgtype") == "m.notice":
            return
        addressed, _ = self._addressed(room, content, str(content.get("body", "")))
        if not addressed:
            return
        self._refused.add(sender)
        log.info("Matrix: refused %s in %s (not allowlisted)", sender, room.room_id)
        try:
            await self._put(room.room_id, "m.room.message", {"msgtype": "m.notice", "body": REFUSAL})
        except MatrixSendError as exc:
            log.warning("Matrix: refusal not sent: %s", exc)

    async def _receipt(self, room_id: str, event_id: str) -> None:
        try:
            await self._require_client().room_read_markers(room_id, event_id, event_id)
        except Exception:
            log.debug("read receipt failed in %s", room_id, exc_info=True)

    # -- events we could not decrypt -------------------------------------------------------
    async def _after_sync(self, response: SyncResponse) -> None:
        """Retry undecryptable events (keys may come late); after the grace, tell the sender."""
        # A room joined in this sync has shown its history by now; later events are live.
        self._joining -= set(self._require_client().rooms)
        try:
            await self._retry_undecryptable()
        except Exception:
            log.exception("Matrix: retrying undecryptable events failed")
        self._save_sync_token(response.next_batch)

    async def _on_to_device(self, event: UnknownToDeviceEvent) -> None:
        """A sender's client said it will not give us a key: remember why, answer at once."""
        if event.type not in WITHHELD_TYPES or event.sender not in self._allowed:
            return
        content = event.source.get("content") or {}
        session_id = content.get("session_id")
        if not isinstance(session_id, str):
            return
        if len(self._withheld) >= MAX_REMEMBERED_WITHHELD:
            self._withheld.clear()
        self._withheld[session_id] = str(content.get("code", ""))
        try:
            await self._retry_undecryptable()
        except Exception:
            log.exception("Matrix: handling a withheld key failed")

    async def _tell_withheld(self, pending: _Undecryptable, code: str) -> None:
        client = self._require_client()
        identity = client.olm.account.identity_keys["ed25519"] if client.olm else "?"
        log.warning("Matrix: the key of %s was withheld by %s (%s)", pending.event.event_id,
                    pending.event.sender, code or "no code")
        zone = self._assistant.deps.settings.core.zone
        sent_at = datetime.fromtimestamp(pending.event.server_timestamp / 1000, tz=self._clock.now().tzinfo)
        session = f"{client.device_id}, key {fingerprint(identity)}"
        # With the setting on, even the verification's own events may be withheld from the bot:
        # the advice turns it off first, then verifies, after which it can go back on.
        why, remedy = {
            "m.unverified": (
                "it sends keys only to verified sessions",
                "Turn off \"Never send encrypted messages to unverified sessions\" (Settings → Security & "
                "Privacy, or this room's settings) and write again. To keep that setting on, verify me while it "
                "is off (my user info → Verify; I show the emoji here), then turn it back on. "
                f"My session is {session}, if you would rather compare it by hand in my user info → Sessions."),
            "m.blacklisted": ("my session is blocked in it",
                              f"Unblock my session ({session}) in my user info → Sessions, then write again."),
        }.get(code, ("it did not share the key with me",
                     f"Write again once it shares keys with my session ({session})."))
        chat = ChatRef(Platform.MATRIX, pending.room_id, pending.event.sender)
        await self.send(chat, OutboundMessage(
            f"I can't read your message from {sent_at.astimezone(zone):%H:%M}: your client withheld its "
            f"key from me because {why}, so sending it again will not help. {remedy}",
            MessageKind.ERROR,
        ))

    async def _retry_undecryptable(self) -> None:
        client = self._require_client()
        for event_id, pending in list(self._undecryptable.items()):
            room = client.rooms.get(pending.room_id)
            decrypted: Event | BadEvent | None = None
            try:
                result = client.decrypt_event(pending.event)
                usable = isinstance(result, _ROOM_EVENTS) and not isinstance(result, MegolmEvent)
                decrypted = result if usable else None
            except Exception:
                decrypted = None
            if decrypted is not None and room is not None:
                del self._undecryptable[event_id]
                await self._route(room, decrypted)
                continue
            code = self._withheld.get(pending.event.session_id)
            if code is not None:
                # The sender's client refused us the key: waiting will not help, say so now.
                del self._undecryptable[event_id]
                await self._tell_withheld(pending, code)
                continue
            pending.syncs += 1
            if pending.syncs <= self._settings.undecryptable_grace_syncs:
                continue
            del self._undecryptable[event_id]
            sent_at = datetime.fromtimestamp(pending.event.server_timestamp / 1000, tz=self._clock.now().tzinfo)
            zone = self._assistant.deps.settings.core.zone
            log.warning("Matrix: could not decrypt %s from %s", event_id, pending.event.sender)
            chat = ChatRef(Platform.MATRIX, pending.room_id, pending.event.sender)
            await self.send(chat, OutboundMessage(
                f"I could not decrypt your message from {sent_at.astimezone(zone):%H:%M}: my device "
                f"({client.device_id}) did not get its key. Please send it again; if this keeps "
                "happening, check that my session is not blocked in your client.",
                MessageKind.ERROR,
            ))
