"""Calling outside HTTP services: every call has a timeout and a size bound, and every
failure becomes a ToolError that names the service and says what went wrong."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from bot.errors import ToolError


@dataclass(frozen=True)
class BoundedBody:
    """A response body read up to a byte limit."""

    status: int
    headers: httpx.Headers
    url: str
    content: bytes
    truncated: bool


async def read_bounded(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    service: str,
    timeout_seconds: float,
    max_bytes: int,
    params: Mapping[str, str | int | float] | None = None,
    data: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    extensions: Mapping[str, Any] | None = None,
) -> BoundedBody:
    """Stream a response and stop reading at `max_bytes`; redirects are not followed.

    `extensions` reach the connection layer (httpcore), e.g. the TLS name of a pinned address.
    """
    chunks: list[bytes] = []
    size = 0
    truncated = False
    try:
        # httpx's timeout is per read; the outer deadline also bounds a slow drip of bytes.
        async with asyncio.timeout(timeout_seconds), http.stream(
            method,
            url,
            params=params,
            data=data,
            headers=headers,
            timeout=httpx.Timeout(timeout_seconds),
            follow_redirects=False,
            extensions=dict(extensions or {}),
        ) as response:
            async for chunk in response.aiter_bytes():
                room = max_bytes - size
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    truncated = True
                    break
                chunks.append(chunk)
                size += len(chunk)
            return BoundedBody(
                status=response.status_code,
                headers=response.headers,
                url=str(response.url),
                content=b"".join(chunks),
                truncated=truncated,
            )
    except (httpx.TimeoutException, TimeoutError):
        raise ToolError(
            f"{service} did not answer within {timeout_seconds:g} s; try again later"
        ) from None
    except httpx.HTTPError as exc:
        raise ToolError(f"could not reach {service}: {type(exc).__name__}: {exc}") from None


async def get_json(
    http: httpx.AsyncClient,
    url: str,
    *,
    service: str,
    timeout_seconds: float,
    max_bytes: int,
    params: Mapping[str, str | int | float] | None = None,
    data: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """GET (or POST form `data`) and decode JSON; HTTP errors carry the service's reason."""
    body = await read_bounded(
        http,
        "POST" if data is not None else "GET",
        url,
        service=service,
        timeout_seconds=timeout_seconds,
        max_bytes=max_bytes,
        params=params,
        data=data,
        headers=headers,
    )
    if body.truncated:
        raise ToolError(f"{service} answered with more than {max_bytes} bytes; narrow the request")
    if body.status == 429:
        raise ToolError(f"{service} is rate limiting us (HTTP 429); try again in a minute")
    if body.status >= 400:
        raise ToolError(f"{service} answered HTTP {body.status}: {_reason(body.content)}")
    if 300 <= body.status < 400:
        raise ToolError(f"{service} answered with a redirect (HTTP {body.status}); check its URL")
    try:
        return json.loads(body.content)
    except (ValueError, UnicodeDecodeError):
        raise ToolError(f"{service} answered with something that is not JSON") from None


def _reason(content: bytes) -> str:
    """The error text of a JSON error body (Open-Meteo `reason`, Nominatim `error`), else a snippet."""
    text = content.decode("utf-8", "replace").strip()
    try:
        loaded = json.loads(text)
    except ValueError:
        loaded = None
    if isinstance(loaded, dict):
        for key in ("reason", "error", "message", "detail"):
            value = loaded.get(key)
            if isinstance(value, dict):
                value = value.get("message") or value.get("detail")
            if isinstance(value, str) and value:
                return value[:300]
    snippet = " ".join(re.sub(r"<[^>]+>", " ", text).split())
    return snippet[:200] or "(empty body)"
