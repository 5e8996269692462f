"""The inbox's HTTP endpoint (aiohttp): where other systems push notifications.

`POST /inbox/{source}` (or `POST /inbox` with a JSON `source`), with the token as
`Authorization: Bearer <token>` or `X-Inbox-Token: <token>`. The token is checked
before the body is read; bodies over the size limit are refused (413) without being
read whole. A JSON object carries `message` (or `body`/`text`), and optionally `title`,
`status`, `subject`, `priority`, `tags`, `url` (ntfy's JSON fields `topic` and `click`
work too); any other body is ntfy-style plain text
with `Title`, `Priority`, `Tags` and `Click` headers (`X-` prefixed works too).
Answers are JSON: `{"id": n}` on success, `{"error": "..."}` otherwise.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import TYPE_CHECKING, Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.config import InboxSettings
from bot.errors import ToolError
from tools.notifications import SOURCE_PATTERN, Notification

if TYPE_CHECKING:
    from tools.skills.inbox import InboxSkill

log = logging.getLogger(__name__)

_PRIORITY_NAMES = {"min": 1, "low": 2, "default": 3, "high": 4, "max": 5, "urgent": 5}


class _JsonNotification(BaseModel):
    """The JSON body; unknown fields (many senders add their own) are ignored."""

    model_config = ConfigDict(extra="ignore")

    source: str | None = None
    topic: str | None = None  # ntfy's JSON publishing names the source "topic"
    title: str = Field(default="", max_length=1000)
    message: str | None = None
    body: str | None = None
    text: str | None = None
    status: str | None = Field(default=None, max_length=40)
    subject: str | None = Field(default=None, max_length=200)
    priority: int | str | None = None
    tags: list[str] | str = Field(default_factory=list)
    url: str | None = Field(default=None, max_length=2000)
    click: str | None = Field(default=None, max_length=2000)

    @field_validator("title", "message", "body", "text", mode="before")
    @classmethod
    def _stringly(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) else value


class InboxServer:
    def __init__(self, inbox: InboxSkill, settings: InboxSettings) -> None:
        self._inbox = inbox
        self._settings = settings
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        return f"http://{self._settings.host}:{self.port}/inbox"

    def app(self) -> web.Application:
        # aiohttp's own limit backs up the streamed check below.
        app = web.Application(client_max_size=self._settings.max_body_bytes + 1)
        app.router.add_post("/inbox", self._post)
        app.router.add_post("/inbox/{source}", self._post)
        app.router.add_put("/inbox/{source}", self._post)
        app.router.add_get("/inbox/health", self._health)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._settings.host, self._settings.port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1]) if sockets else self._settings.port
        log.info("inbox endpoint listening on %s", self.url)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- handlers ---------------------------------------------------------------------
    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def _post(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return _error(401, "missing or wrong token (send Authorization: Bearer <token>)")
        limit = self._settings.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            return _error(413, f"body larger than {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        try:
            # Chunked bodies have no length up front: count while reading, stop past the limit.
            while chunk := await request.content.readany():
                size += len(chunk)
                if size > limit:
                    return _error(413, f"body larger than {limit} bytes")
                chunks.append(chunk)
        except (ConnectionError, web.HTTPException):
            return _error(400, "the body could not be read")
        raw = b"".join(chunks)
        try:
            notification = self._parse(request, raw)
            new_id = await self._inbox.receive(notification)
        except _BadRequest as exc:
            return _error(400, str(exc))
        except ToolError as exc:
            return _error(400, str(exc))
        return web.json_response({"id": new_id, "source": notification.source})

    def _authorised(self, request: web.Request) -> bool:
        token = self._settings.token
        if token is None or not token.get_secret_value():
            return False  # no token configured: nobody gets in
        given = request.headers.get("X-Inbox-Token", "")
        auth = request.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        return hmac.compare_digest(given.encode(), token.get_secret_value().encode())

    def _parse(self, request: web.Request, raw: bytes) -> Notification:
        source = request.match_info.get("source")
        if request.content_type == "application/json":
            return _from_json(raw, source)
        text = raw.decode("utf-8", "replace").strip()
        headers = request.headers
        title = _header(headers, "Title", "t")
        if not text and not title:
            raise _BadRequest("empty body: send the notification text, or JSON with a message")
        if source is None:
            raise _BadRequest("say the source in the path: POST /inbox/<source>")
        return Notification(
            source=source,
            message=text,
            title=title,
            status=_header(headers, "Status") or None,
            subject=_header(headers, "Subject") or None,
            priority=_priority(_header(headers, "Priority", "p") or None),
            tags=tuple(t.strip() for t in _header(headers, "Tags", "ta").split(",") if t.strip()),
            url=_header(headers, "Click") or None,
        )


class _BadRequest(Exception):
    """A push the endpoint refuses with HTTP 400; the message says why."""


def _from_json(raw: bytes, source: str | None) -> Notification:
    try:
        loaded = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _BadRequest(f"the body is not valid JSON ({exc})") from None
    if not isinstance(loaded, dict):
        raise _BadRequest("the JSON body must be an object such as {\"title\": \"…\", \"message\": \"…\"}")
    try:
        body = _JsonNotification.model_validate(loaded)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        raise _BadRequest(f"the JSON does not fit: {problems}") from None
    chosen = source or body.source or body.topic
    if not chosen:
        raise _BadRequest("say the source: POST /inbox/<source>, or a \"source\" field")
    if not SOURCE_PATTERN.match(chosen):
        raise _BadRequest(f"invalid source name {chosen!r}: letters, digits, '.', '_' or '-' (max 64)")
    message = body.message or body.body or body.text or ""
    if not message.strip() and not body.title.strip():
        raise _BadRequest("the notification needs a \"message\" (or a \"title\")")
    tags = body.tags.split(",") if isinstance(body.tags, str) else body.tags
    return Notification(
        source=chosen,
        message=message,
        title=body.title,
        status=body.status,
        subject=body.subject,
        priority=_priority(body.priority),
        tags=tuple(str(t).strip() for t in tags if str(t).strip())[:20],
        url=body.url or body.click,
    )


def _header(headers: Any, name: str, short: str | None = None) -> str:
    for key in (name, f"X-{name}", short):
        if key and key in headers:
            return str(headers[key]).strip()
    return ""


def _priority(value: int | str | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return min(max(value, 1), 5)
    text = value.strip().lower()
    if text.isdigit():
        return min(max(int(text), 1), 5)
    return _PRIORITY_NAMES.get(text)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
