"""A local HTTP server of feeds for tests: validators, 304s, redirects, broken and huge bodies."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from email.utils import format_datetime
from html import escape

from aiohttp import web


@dataclass(frozen=True)
class Item:
    title: str
    link: str | None = None
    guid: str | None = None
    description: str = ""
    published: datetime | None = None


def rss(title: str, items: list[Item], *, extra_head: str = "") -> bytes:
    parts = [f'<?xml version="1.0" encoding="utf-8"?>{extra_head}<rss version="2.0"><channel>',
             f"<title>{escape(title)}</title><link>https://example.org/</link><description>d</description>"]
    for item in items:
        parts.append("<item>")
        parts.append(f"<title>{escape(item.title)}</title>")
        if item.link:
            parts.append(f"<link>{escape(item.link)}</link>")
        if item.guid:
            parts.append(f'<guid isPermaLink="false">{escape(item.guid)}</guid>')
        if item.description:
            parts.append(f"<description>{escape(item.description)}</description>")
        if item.published:
            parts.append(f"<pubDate>{format_datetime(item.published)}</pubDate>")
        parts.append("</item>")
    parts.append("</channel></rss>")
    return "".join(parts).encode()


def atom(title: str, entries: list[Item]) -> bytes:
    parts = ['<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">',
             f"<title>{escape(title)}</title><id>urn:feed</id><updated>2026-03-01T00:00:00Z</updated>"]
    for entry in entries:
        parts.append("<entry>")
        parts.append(f"<title>{escape(entry.title)}</title>")
        if entry.guid:
            parts.append(f"<id>{escape(entry.guid)}</id>")
        if entry.link:
            parts.append(f'<link href="{escape(entry.link)}"/>')
        if entry.published:
            parts.append(f"<updated>{entry.published.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>")
        parts.append(f'<content type="html">{escape(entry.description)}</content>')
        parts.append("</entry>")
    parts.append("</feed>")
    return "".join(parts).encode()


@dataclass
class Route:
    """What one path answers; `etag`/`last_modified` enable conditional GET."""

    body: bytes = b""
    status: int = 200
    content_type: str = "application/rss+xml"
    etag: str | None = None
    last_modified: str | None = None
    redirect_to: str | None = None
    chunked: bool = False


@dataclass
class FeedServer:
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    base_url: str = ""
    _runner: web.AppRunner | None = None

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def hits(self, path: str) -> list[dict[str, str]]:
        return [headers for seen, headers in self.requests if seen == path]

    def set(self, path: str, route: Route | None = None, **values: object) -> None:
        self.routes[path] = route or Route(**values)  # type: ignore[arg-type]

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/{path:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        self.requests.append((path, dict(request.headers)))
        route = self.routes.get(path)
        if route is None:
            return web.Response(status=404, text="no such feed")
        if route.redirect_to is not None:
            raise web.HTTPFound(route.redirect_to)
        headers: dict[str, str] = {}
        if route.etag:
            headers["ETag"] = route.etag
        if route.last_modified:
            headers["Last-Modified"] = route.last_modified
        if (route.etag and request.headers.get("If-None-Match") == route.etag) or (
            route.last_modified and not route.etag
            and request.headers.get("If-Modified-Since") == route.last_modified
        ):
            return web.Response(status=304, headers=headers)
        if route.chunked:
            response = web.StreamResponse(status=route.status, headers={**headers, "Content-Type": route.content_type})
            response.enable_chunked_encoding()
            await response.prepare(request)
            for start in range(0, len(route.body), 65_536):
                await response.write(route.body[start:start + 65_536])
            await response.write_eof()
            return response
        return web.Response(status=route.status, body=route.body, headers=headers, content_type=route.content_type)


