"""A small fake Telegram Bot API over HTTP (aiohttp on 127.0.0.1, random port).

The real python-telegram-bot talks to it through `base_url`/`base_file_url`. It answers
the methods the adapter uses, checks what Telegram checks (text length and entity
bounds in UTF-16 units, button data size, editing an unknown or unchanged message,
answering an unknown callback query), records every call with its decoded parameters,
and serves updates that tests push, with real long polling on getUpdates.

PTB sends form fields (each value JSON-encoded except plain strings); other clients send
JSON bodies. Both are decoded per field into the same Python values.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from telegram import Update

# Fields whose form value is JSON (objects, arrays); the rest are strings, ints or bools.
_JSON_FIELDS = {
    "reply_markup", "entities", "caption_entities", "allowed_updates", "commands", "scope",
    "link_preview_options", "reply_parameters", "media",
}
_INT_FIELDS = {"offset", "limit", "timeout", "message_id", "message_thread_id", "cache_time", "draft_id",
               "max_connections", "from_chat_id"}
_BOOL_FIELDS = {"show_alert", "drop_pending_updates", "disable_notification", "protect_content",
                "allow_sending_without_reply", "is_personal"}
_INTEGER = re.compile(r"^-?\d+$")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def decode_field(name: str, raw: str) -> Any:
    """One form field as the Python value the sender meant."""
    if name in _JSON_FIELDS:
        return json.loads(raw)
    if name in _INT_FIELDS:
        return int(raw)
    if name in _BOOL_FIELDS:
        return raw.lower() in {"true", "1"}
    if name == "chat_id" and _INTEGER.match(raw):
        return int(raw)
    return raw


@dataclass(frozen=True)
class ApiCall:
    method: str
    params: dict[str, Any]
    encoding: str  # "form", "multipart", "json" or "query"


@dataclass
class BotMessage:
    """A message the bot sent, as the fake server keeps it (so edits can be checked)."""

    chat_id: int
    message_id: int
    text: str
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None
    edits: int = 0
    first_markup: dict[str, Any] | None = None  # as sent, before any edit

    @property
    def had_buttons(self) -> bool:
        return self.first_markup is not None


class ApiError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


@dataclass
class FakeBotApi:
    token: str = "123456:TEST-fake-token"
    bot_id: int = 123456
    username: str = "mayordomo_test_bot"
    calls: list[ApiCall] = field(default_factory=list)
    messages: dict[tuple[int, int], BotMessage] = field(default_factory=dict)
    sent: list[BotMessage] = field(default_factory=list)  # in the order they were sent
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    pushed: list[dict[str, Any]] = field(default_factory=list)  # every update tests pushed
    documents: list[tuple[int, bytes, str]] = field(default_factory=list)  # (chat, content, caption) sent
    drafts: list[tuple[int, int, str]] = field(default_factory=list)  # (chat, draft id, text)
    webhook_url: str = ""
    _updates: list[dict[str, Any]] = field(default_factory=list)
    _failures: defaultdict[str, deque[int]] = field(default_factory=lambda: defaultdict(deque))
    _callback_ids: set[str] = field(default_factory=set)
    _update_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))
    _changed: asyncio.Condition | None = None
    _runner: web.AppRunner | None = None
    _closing: bool = False
    port: int = 0

    # -- server ------------------------------------------------------------------------
    async def start(self) -> None:
        self._changed = asyncio.Condition()
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        # handler_cancellation: a long poll the client gave up on stops waiting, as on Telegram.
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        self._closing = True
        await self._notify()  # long polls return now instead of at their timeout
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    # -- what tests do ----------------------------------------------------------------
    async def push(self, update: Update | dict[str, Any]) -> int:
        """Queue an update (its update_id is replaced by the server's next one)."""
        data = update.to_dict() if isinstance(update, Update) else dict(update)
        data["update_id"] = next(self._update_ids)
        query = data.get("callback_query")
        if isinstance(query, dict) and "id" in query:
            self._callback_ids.add(str(query["id"]))
        self._updates.append(data)
        self.pushed.append(data)
        await self._notify()
        return int(data["update_id"])

    def next_message_id(self) -> int:
        return next(self._message_ids)

    def add_file(self, content: bytes, path_hint: str = "voice/file.oga") -> str:
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = (f"{path_hint.rsplit('.', 1)[0]}_{len(self.files) + 1}."
                               f"{path_hint.rsplit('.', 1)[-1]}", content)
        return file_id

    def fail_next(self, method: str, status: int = 502, times: int = 1) -> None:
        """Answer the next `times` calls of `method` (or file downloads: "download") with an HTTP error status."""
        self._failures[method].extend([status] * times)

    def heal(self) -> None:
        """End every injected failure (the outage is over)."""
        self._failures.clear()

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method == method]

    async def wait_for(
        self,
        method: str,
        predicate: Callable[[ApiCall], bool] | None = None,
        count: int = 1,
        within: float = 15.0,
    ) -> list[ApiCall]:
        """Wait until `count` calls of `method` (matching `predicate`) were received."""
        def matching() -> list[ApiCall]:
            return [c for c in self.calls_to(method) if predicate is None or predicate(c)]

        assert self._changed is not None
        async with asyncio.timeout(within):
            async with self._changed:
                await self._changed.wait_for(lambda: len(matching()) >= count)
        return matching()

    @property
    def pending_updates(self) -> int:
        return len(self._updates)

    # -- HTTP --------------------------------------------------------------------------
    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        params, encoding = await _decode(request)
        self.calls.append(ApiCall(method, params, encoding))
        try:
            return await self._answer(method, params)
        finally:
            await self._notify()  # after the state changed, so waiters see the result

    async def _answer(self, method: str, params: dict[str, Any]) -> web.Response:
        failures = self._failures.get(method)
        if failures:
            status = failures.popleft()
            if status == 429:
                return _error(429, "Too Many Requests: retry after 3", {"retry_after": 3})
            return _error(status, "Bad Gateway" if status == 502 else "Bad Request: injected failure")
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return _error(404, "Not Found: method not found")
        try:
            result = await handler(params)
        except ApiError as exc:
            return _error(exc.code, exc.description)
        return web.json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        path = request.match_info["path"]
        self.calls.append(ApiCall("download", {"path": path}, "query"))
        await self._notify()
        failures = self._failures.get("download")
        if failures:  # fail_next("download", …): the file server, not the Bot API, is in trouble
            status = failures.popleft()
            return _error(status, "Bad Gateway" if status == 502 else "Bad Request: injected failure")
        for file_path, content in self.files.values():
            if file_path == path:
                return web.Response(body=content, content_type="application/octet-stream")
        return web.Response(status=404)

    # -- methods -----------------------------------------------------------------------
    def _bot_user(self) -> dict[str, Any]:
        return {"id": self.bot_id, "is_bot": True, "first_name": "Mayordomo",
                "username": self.username, "can_join_groups": False,
                "can_read_all_group_messages": False, "supports_inline_queries": False}

    async def _m_getMe(self, params: dict[str, Any]) -> Any:
        return self._bot_user()

    async def _m_deleteWebhook(self, params: dict[str, Any]) -> Any:
        self.webhook_url = ""
        return True

    async def _m_setWebhook(self, params: dict[str, Any]) -> Any:
        self.webhook_url = str(params.get("url", ""))
        return True

    async def _m_setMyCommands(self, params: dict[str, Any]) -> Any:
        for command in params.get("commands", []):
            if not re.fullmatch(r"[a-z0-9_]{1,32}", command["command"]):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(command["description"]) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        return True

    async def _m_getUpdates(self, params: dict[str, Any]) -> Any:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        if offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        assert self._changed is not None
        if not self._updates and timeout > 0:
            # Long polling: an empty answer when nothing arrives within the timeout.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    async with self._changed:
                        await self._changed.wait_for(lambda: bool(self._updates) or self._closing)
        return self._updates[:limit]

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        chat_id = _chat_id(params)
        text = str(params.get("text", ""))
        entities = list(params.get("entities") or [])
        _check_text(text, entities)
        markup = params.get("reply_markup")
        _check_markup(markup)
        message = BotMessage(chat_id, self.next_message_id(), text, entities,
                             markup if _is_inline(markup) else None,
                             first_markup=markup if _is_inline(markup) else None)
        self.messages[(chat_id, message.message_id)] = message
        self.sent.append(message)
        return self._message_dict(message)

    async def _m_sendDocument(self, params: dict[str, Any]) -> Any:
        chat_id = _chat_id(params)
        content = params.get("document")
        if not isinstance(content, bytes):
            raise ApiError(400, "Bad Request: there is no document in the request")
        message_id = self.next_message_id()
        self.documents.append((chat_id, content, str(params.get("caption", ""))))
        return {"message_id": message_id, "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                "from": self._bot_user(), "caption": str(params.get("caption", "")),
                "document": {"file_id": f"doc{message_id}", "file_unique_id": f"udoc{message_id}",
                             "file_size": len(content)}}

    async def _m_editMessageText(self, params: dict[str, Any]) -> Any:
        message = self._find(params)
        text = str(params.get("text", ""))
        entities = list(params.get("entities") or [])
        _check_text(text, entities)
        markup = params.get("reply_markup")
        _check_markup(markup)
        if text == message.text and entities == message.entities and markup == message.reply_markup:
            raise ApiError(400, "Bad Request: message is not modified: specified new message "
                                "content and reply markup are exactly the same")
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.edits += 1
        return self._message_dict(message)

    async def _m_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        message = self._find(params)
        markup = params.get("reply_markup")
        _check_markup(markup)
        if markup == message.reply_markup:
            raise ApiError(400, "Bad Request: message is not modified")
        message.reply_markup = markup
        message.edits += 1
        return self._message_dict(message)

    async def _m_answerCallbackQuery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("callback_query_id", ""))
        if query_id not in self._callback_ids:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired "
                                "or query ID is invalid")
        self._callback_ids.discard(query_id)  # a query is answered once
        if len(str(params.get("text", ""))) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        return True

    async def _m_sendMessageDraft(self, params: dict[str, Any]) -> Any:
        """Bot API 9.5+: stream a temporary draft to a private chat; `True` on success."""
        chat_id = _chat_id(params)
        if chat_id <= 0:
            raise ApiError(400, "Bad Request: drafts can be sent to private chats only")
        draft_id = params.get("draft_id")
        if not isinstance(draft_id, int) or draft_id == 0:
            raise ApiError(400, "Bad Request: draft_id must be a non-zero integer")
        text = str(params.get("text", ""))
        entities = list(params.get("entities") or [])
        if text:
            _check_text(text, entities)
        self.drafts.append((chat_id, draft_id, text))
        return True

    async def _m_sendChatAction(self, params: dict[str, Any]) -> Any:
        _chat_id(params)
        if params.get("action") not in {"typing", "record_voice", "upload_document", "find_location"}:
            raise ApiError(400, "Bad Request: wrong parameter action in request")
        return True

    async def _m_getFile(self, params: dict[str, Any]) -> Any:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        path, content = self.files[file_id]
        return {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(content),
                "file_path": path}

    # -- helpers -----------------------------------------------------------------------
    def _find(self, params: dict[str, Any]) -> BotMessage:
        key = (_chat_id(params), int(params.get("message_id") or 0))
        message = self.messages.get(key)
        if message is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        return message

    def _message_dict(self, message: BotMessage) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "date": int(time.time()),
            "chat": {"id": message.chat_id, "type": "private" if message.chat_id > 0 else "group"},
            "from": self._bot_user(),
            "text": message.text,
        }
        if message.entities:
            data["entities"] = message.entities
        if message.reply_markup:
            data["reply_markup"] = message.reply_markup
        return data


async def _decode(request: web.Request) -> tuple[dict[str, Any], str]:
    content_type = request.content_type
    if content_type == "application/json":
        body = await request.json()
        return (dict(body) if isinstance(body, dict) else {}), "json"
    params: dict[str, Any] = {}
    for name, query_value in request.query.items():
        params[name] = decode_field(name, query_value)
    encoding = "query"
    if request.method == "POST" and request.can_read_body:
        form = await request.post()
        encoding = "multipart" if content_type.startswith("multipart/") else "form"
        for name, value in form.items():
            if isinstance(value, str):
                params[name] = decode_field(name, value)
            elif isinstance(value, bytes | bytearray):
                params[name] = bytes(value)
            else:  # an uploaded file
                params[name] = value.file.read()
    return params, encoding


def _error(code: int, description: str, parameters: dict[str, Any] | None = None) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=code)


def _chat_id(params: dict[str, Any]) -> int:
    chat_id = params.get("chat_id")
    if not isinstance(chat_id, int):
        raise ApiError(400, "Bad Request: chat not found")
    return chat_id


def _check_text(text: str, entities: list[dict[str, Any]]) -> None:
    if not text.strip():
        raise ApiError(400, "Bad Request: message text is empty")
    size = utf16_len(text)
    if size > 4096:
        raise ApiError(400, "Bad Request: message is too long")
    for entity in entities:
        offset, length = int(entity["offset"]), int(entity["length"])
        if offset < 0 or length <= 0 or offset + length > size:
            raise ApiError(400, f"Bad Request: can't parse entities: entity {entity} out of bounds")


def _is_inline(markup: Any) -> bool:
    return isinstance(markup, dict) and "inline_keyboard" in markup


def _check_markup(markup: Any) -> None:
    if not _is_inline(markup):
        return
    for row in markup["inline_keyboard"]:
        for button in row:
            data = button.get("callback_data")
            if data is not None and not 1 <= len(data.encode()) <= 64:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")


def transcript(calls: list[ApiCall], skip: frozenset[str] = frozenset({"getUpdates", "getMe",
                                                                       "setMyCommands", "deleteWebhook"})) -> str:
    """The calls as one line each (method and the parameters that matter), for reading a test's log."""
    lines: list[str] = []
    for call in calls:
        if call.method in skip:
            continue
        shown = {k: (f"<{len(v)} bytes>" if isinstance(v, bytes) else v) for k, v in call.params.items()
                 if k not in {"entities", "link_preview_options"}}
        lines.append(f"{call.method} {json.dumps(shown, ensure_ascii=False, default=str)}")
    return "\n".join(lines)
