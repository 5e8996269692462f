"""PTB's networking backend on aiohttp (its `BaseRequest` extension point) instead of httpx.

Every turn makes several Bot API calls (the answer, "typing…", a progress draft), and each
one through httpx and httpcore cost about three times the CPU of the same request through
aiohttp, whose HTTP parser is compiled. The Bot API semantics stay PTB's: status codes
and error bodies are turned into TelegramErrors by `BaseRequest`; this class only moves bytes.

A timeout after the request was written (no answer in time) raises `AnswerTimedOut`:
Telegram may have acted on it, so a send is not repeated blindly (see TelegramAdapter).
"""

from __future__ import annotations

from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

_DEFAULT = BaseRequest.DEFAULT_NONE


class AnswerTimedOut(TimedOut):
    """The request went out but Telegram's answer did not come in time: it may have acted on it."""


class AiohttpRequest(BaseRequest):
    """One aiohttp session with a bounded pool; timeouts as PTB names them, in seconds."""

    def __init__(self, connection_pool_size: int = 1, *, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0, media_write_timeout: float | None = 20.0) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            # No proxies or netrc from the environment: the same as the httpx client PTB made.
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size), trust_env=False,
                headers={"User-Agent": self.USER_AGENT}, skip_auto_headers=("Accept-Encoding",))

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = _DEFAULT,
        write_timeout: Any = _DEFAULT,
        connect_timeout: Any = _DEFAULT,
        pool_timeout: Any = _DEFAULT,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        read = self._read_timeout if read_timeout is _DEFAULT else read_timeout
        write = (self._media_write_timeout if files else self._write_timeout) \
            if write_timeout is _DEFAULT else write_timeout
        connect = self._connect_timeout if connect_timeout is _DEFAULT else connect_timeout
        pool = self._pool_timeout if pool_timeout is _DEFAULT else pool_timeout
        data: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            form = aiohttp.FormData(fields or {})
            for name, (filename, content, mime_type) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime_type)
            data = form
        # aiohttp has no write timeout of its own: the whole exchange is bounded instead, so a
        # stuck upload cannot hang the caller for ever.
        parts = (read, write, connect, pool)
        total = None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
        timeout = aiohttp.ClientTimeout(total=total, connect=_add(pool, connect), sock_connect=connect,
                                        sock_read=read)
        try:
            async with session.request(method, url, data=data, timeout=timeout) as response:
                return response.status, await response.read()
        except aiohttp.ConnectionTimeoutError as exc:
            raise TimedOut("Timed out while connecting to Telegram; the request was not sent") from exc
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            # Past the connection, the request may have reached Telegram.
            raise AnswerTimedOut("Telegram's answer did not come in time") from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b
