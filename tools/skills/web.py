"""Web search (a SearXNG instance's JSON API, or the Brave Search API) and page reading.

Everything returned here was written by strangers, so both tools are `untrusted_output`.
A fetch streams at most `fetch_max_bytes`, follows at most a few redirects (each hop is
checked again), refuses the owner's private network unless allowed, and extracts the
readable text with trafilatura from the bytes we already have: trafilatura never fetches.
"""

from __future__ import annotations

import asyncio
import html
import ipaddress
import re
import socket
from dataclasses import dataclass
from typing import Annotated, Any

import httpx
import trafilatura
from pydantic import BaseModel, Field

from bot.config import WebSettings
from bot.errors import ToolError
from tools.registry import BoundTool, Skill, tool
from tools.skills.external import get_json, read_bounded

MAX_REDIRECTS = 5
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/rss+xml", "application/atom+xml")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class Page:
    url: str
    title: str | None
    text: str
    truncated_bytes: bool
    truncated_chars: bool


class SearxngSearch:
    """A SearXNG instance's /search?format=json (the instance must enable the json format)."""

    service = "the search engine (SearXNG)"

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self._http = http
        self._settings = settings

    async def search(self, query: str, limit: int) -> tuple[list[SearchResult], list[str]]:
        assert self._settings.searxng_url
        try:
            payload = await get_json(
                self._http,
                f"{self._settings.searxng_url.rstrip('/')}/search",
                service=self.service,
                timeout_seconds=self._settings.timeout_seconds,
                max_bytes=self._settings.fetch_max_bytes,
                params={"q": query, "format": "json", "pageno": 1},
                headers={"User-Agent": self._settings.user_agent, "Accept": "application/json"},
            )
        except ToolError as exc:
            if "HTTP 403" in str(exc):
                raise ToolError(
                    f"{self.service} refuses JSON answers (HTTP 403): enable 'json' under "
                    "search.formats in the instance's settings.yml"
                ) from None
            raise
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        results = [
            SearchResult(
                title=_clean(item.get("title")) or str(item["url"]),
                url=str(item["url"]),
                snippet=_clean(item.get("content")),
            )
            for item in payload["results"]
            if isinstance(item, dict) and item.get("url")
        ]
        answers = []
        for answer in payload.get("answers") or []:
            text = answer.get("answer") if isinstance(answer, dict) else answer
            if isinstance(text, str) and text.strip():
                answers.append(_clean(text))
        return _dedupe(results)[:limit], answers


class BraveSearch:
    """The Brave Search API (needs WEB_BRAVE_API_KEY)."""

    service = "the search engine (Brave Search API)"

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self._http = http
        self._settings = settings

    async def search(self, query: str, limit: int) -> tuple[list[SearchResult], list[str]]:
        assert self._settings.brave_api_key is not None
        payload = await get_json(
            self._http,
            self._settings.brave_url,
            service=self.service,
            timeout_seconds=self._settings.timeout_seconds,
            max_bytes=self._settings.fetch_max_bytes,
            params={"q": query, "count": min(limit, 20)},
            headers={
                "Accept": "application/json",
                "X-Subscription-Token": self._settings.brave_api_key.get_secret_value(),
            },
        )
        web = payload.get("web") if isinstance(payload, dict) else None
        items = web.get("results") if isinstance(web, dict) else []
        if not isinstance(items, list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        results = [
            SearchResult(
                title=_clean(item.get("title")) or str(item["url"]),
                url=str(item["url"]),
                snippet=_clean(item.get("description")),
            )
            for item in items
            if isinstance(item, dict) and item.get("url")
        ]
        return _dedupe(results)[:limit], []


def _clean(value: Any) -> str:
    """Plain one-line text from a snippet that may carry HTML tags or entities."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def _dedupe(results: list[SearchResult]) -> list[SearchResult]:
    seen: set[str] = set()
    unique = []
    for result in results:
        if result.url not in seen:
            seen.add(result.url)
            unique.append(result)
    return unique


class PageFetcher:
    """Fetch one page within limits and return its readable text."""

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self._http = http
        self._settings = settings

    async def fetch(self, url: str) -> Page:
        current = _checked_url(url)
        for _ in range(MAX_REDIRECTS + 1):
            await self._check_host(current)
            body = await read_bounded(
                self._http,
                "GET",
                str(current),
                service=f"the web site {current.host}",
                timeout_seconds=self._settings.timeout_seconds,
                max_bytes=self._settings.fetch_max_bytes,
                headers={
                    "User-Agent": self._settings.user_agent,
                    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                },
            )
            if body.status in (301, 302, 303, 307, 308) and "location" in body.headers:
                current = _checked_url(str(current.join(body.headers["location"])))
                continue
            if body.status >= 400:
                raise ToolError(f"{current} answered HTTP {body.status}; the page could not be read")
            return await self._readable(str(current), body.headers, body.content, body.truncated)
        raise ToolError(f"{url} redirects more than {MAX_REDIRECTS} times; gave up")

    async def _readable(self, url: str, headers: httpx.Headers, content: bytes, truncated: bool) -> Page:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        limit = self._settings.fetch_max_chars
        if content_type in _HTML_TYPES or (not content_type and content.lstrip()[:1] == b"<"):
            title, text = await asyncio.to_thread(_extract_html, content, url)
        elif content_type.startswith(_TEXT_TYPES):
            title, text = None, content.decode(_charset(headers), errors="replace")
        else:
            raise ToolError(f"{url} is {content_type or 'of unknown type'}, not a page I can read as text")
        text = text.strip()
        if not text:
            raise ToolError(f"{url} has no readable text (it may need JavaScript or a login)")
        return Page(
            url=url,
            title=title,
            text=text[:limit],
            truncated_bytes=truncated,
            truncated_chars=len(text) > limit,
        )

    async def _check_host(self, url: httpx.URL) -> None:
        if self._settings.allow_private_addresses:
            return
        host = url.host
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, url.port or (443 if url.scheme == "https" else 80), type=socket.SOCK_STREAM
                )
            except OSError:
                raise ToolError(f"the host {host} does not resolve; check the address") from None
            addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
        for address in addresses:
            if not address.is_global or address.is_multicast:
                raise ToolError(
                    f"{host} is a private or local address ({address}); fetching it is not allowed"
                )


def _checked_url(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ToolError(f"{url!r} is not a valid web address") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ToolError(f"{url!r} is not an http(s) web address")
    return parsed


def _charset(headers: httpx.Headers) -> str:
    match = re.search(r"charset=([\w.-]+)", headers.get("content-type", ""), re.IGNORECASE)
    if match:
        try:
            "".encode(match.group(1))
        except LookupError:
            return "utf-8"  # a charset Python does not know: read it as UTF-8
        return match.group(1)
    return "utf-8"


def _extract_html(content: bytes, url: str) -> tuple[str | None, str]:
    """Title and main text of an HTML document; trafilatura only parses, never fetches."""
    document = trafilatura.bare_extraction(
        content,
        url=url,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        favor_recall=True,
    )
    if document is None:
        return None, ""
    title = getattr(document, "title", None)
    text = getattr(document, "text", None) or ""
    return (str(title) if title else None), str(text)


def _describe_fetch(args: BaseModel) -> str:
    return f"Open the web page {getattr(args, 'url', '?')} (the address itself reaches that site)."


class WebSkill(Skill):
    id = "web"
    description = "search the web and read web pages"

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self.settings = settings
        self.searchers: list[SearxngSearch | BraveSearch] = []
        if settings.searxng_url:
            self.searchers.append(SearxngSearch(http, settings))
        if settings.brave_api_key is not None and settings.brave_api_key.get_secret_value():
            self.searchers.append(BraveSearch(http, settings))
        self.fetcher = PageFetcher(http, settings)

    def tools(self) -> list[BoundTool]:
        """Without a search provider configured, web_search is absent rather than broken."""
        return [bound for bound in super().tools() if bound.name != "web_search" or self.searchers]

    @tool(untrusted_output=True)
    async def web_search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=400, description="what to search for")],
        limit: Annotated[int, Field(ge=1, le=30, description="at most this many results")] = 5,
    ) -> str:
        """Search the web; returns titles, addresses and snippets of the best results."""
        count = min(limit, self.settings.search_max_results)
        failures: list[str] = []
        for searcher in self.searchers:
            try:
                results, answers = await searcher.search(query, count)
            except ToolError as exc:
                # One provider down: try the next one before giving up.
                failures.append(str(exc))
                continue
            if not results and not answers:
                return f"The web search found nothing for {query!r}."
            lines = [f"Web results for {query!r}:"]
            lines.extend(f"Quick answer: {answer}" for answer in answers[:2])
            for number, result in enumerate(results, 1):
                lines.append(f"{number}. {result.title} — {result.url}")
                if result.snippet:
                    lines.append(f"   {result.snippet[:300]}")
            return "\n".join(lines)
        raise ToolError("; ".join(failures) or "no web search provider is configured")

    @tool(untrusted_output=True, sends_data_out=True, describe=_describe_fetch)
    async def web_fetch(
        self,
        url: Annotated[str, Field(min_length=4, max_length=2000, description="the http(s) address of the page")],
    ) -> str:
        """Read a web page and return its main text (title, address, readable text)."""
        page = await self.fetcher.fetch(url)
        notes = []
        if page.truncated_bytes:
            notes.append(f"the page is larger than {self.settings.fetch_max_bytes} bytes; only its start was read")
        if page.truncated_chars:
            notes.append(f"text cut at {self.settings.fetch_max_chars} characters")
        header = [f"Page: {page.title or '(no title)'}", f"URL: {page.url}"]
        if notes:
            header.append(f"Note: {'; '.join(notes)}")
        return "\n".join(header) + "\n\n" + page.text
