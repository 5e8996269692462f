"""RSS/Atom feeds from settings: fetched politely, stored once, read and picked from SQLite.

Fetching follows redirects, sends the feed's ETag/Last-Modified back (a 304 costs
nothing) and stops at a byte limit. feedparser only ever gets the downloaded bytes
wrapped in a stream: given a string (or bytes) it would try it as a URL or a local
file name first. Entries are deduplicated by feed id and by link; an entry without
either is keyed by a hash of its text. Feed text is written by strangers, so the
reading tools are `untrusted_output`. "Pick the best" is keyword overlap with the
owner's interests plus a little recency — no model involved.
"""

from __future__ import annotations

import asyncio
import calendar
import hashlib
import io
import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import httpx
from pydantic import BaseModel, Field

from bot.clock import Clock
from bot.config import NewsSettings, Settings
from bot.core.events import MessageKind, OutboundMessage
from bot.errors import ToolError
from memory.db import Database
from memory.profile import ProfileSection, ProfileStore
from tools.context import ToolContext
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Decision, Risk, Routing, tool
from tools.text import html_to_text, one_line

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from bot.core.assistant import Assistant

log = logging.getLogger(__name__)

NEWS_DIGEST_JOB = "news-digest"

ENTRY_TEXT_CHARS = 50_000
READ_CHARS = 12_000
SNIPPET_CHARS = 140
PICK_WINDOW = timedelta(days=3)
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
_STOPWORDS = frozenset("""
the and for with that this from are was were has have had not but you your our their its his her
will would can could about into over after before more most than then them they what when where which
who why how all any new news also just like been being said says per via
los las del que con por para una uno unos unas como más pero sus son fue han hay este esta estos estas
ese esa sobre entre desde hasta cuando donde quien porque sin muy ya tras ante según
""".split())

EntryId = Annotated[int, Field(ge=1, description="the entry's id (#n in listings)")]


class FetchOutcome(StrEnum):
    UPDATED = "updated"
    NOT_MODIFIED = "not_modified"
    FAILED = "failed"


@dataclass(frozen=True)
class FeedResult:
    url: str
    outcome: FetchOutcome
    new_entries: int = 0
    error: str = ""


@dataclass(frozen=True)
class NewsEntry:
    id: int
    feed_url: str
    feed_title: str
    link: str | None
    title: str
    text: str
    published_at: datetime | None
    sort_at: datetime
    read: bool


@dataclass(frozen=True)
class ParsedEntry:
    key: str
    link: str | None
    title: str
    text: str
    published_at: datetime | None


@dataclass(frozen=True)
class ParsedFeed:
    title: str
    entries: tuple[ParsedEntry, ...]
    malformed: bool


@dataclass(frozen=True)
class Pick:
    entry: NewsEntry
    score: float
    matched: tuple[str, ...]


def parse_feed(content: bytes, *, content_type: str = "", base_url: str = "") -> ParsedFeed:
    """Parse feed bytes; raise ToolError when it is not a feed at all."""
    headers = {"content-type": content_type or "application/xml", "content-location": base_url}
    # A stream, never a str/bytes: feedparser would try those as a URL or a local path first.
    import feedparser  # only when feeds are configured and read

    parsed: Any = feedparser.parse(io.BytesIO(content), response_headers=headers)
    if not parsed.entries and (parsed.bozo or not parsed.version):
        reason = type(parsed.get("bozo_exception")).__name__ if parsed.bozo else "no RSS/Atom elements"
        raise ToolError(f"not a readable RSS/Atom feed ({reason})")
    entries: list[ParsedEntry] = []
    for raw in parsed.entries:
        entry = _entry(raw)
        if entry is not None:
            entries.append(entry)
    title = one_line(html_to_text(str(parsed.feed.get("title", ""))), 200)
    return ParsedFeed(title=title, entries=tuple(entries), malformed=bool(parsed.bozo))


def _entry(raw: Any) -> ParsedEntry | None:
    title = one_line(html_to_text(str(raw.get("title", ""))), 300)
    contents = raw.get("content") or []
    body = max((str(c.get("value", "")) for c in contents), key=len, default="")
    summary = str(raw.get("summary", ""))
    text = html_to_text(body if len(body) > len(summary) else summary)[:ENTRY_TEXT_CHARS]
    link = str(raw.get("link", "")).strip() or None
    if link is not None and not link.lower().startswith(("http://", "https://")):
        link = None
    if not title and not text:
        return None
    guid = str(raw.get("id", "")).strip()
    key = guid or link or "sha1:" + hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()
    return ParsedEntry(key=key[:500], link=link, title=title or one_line(text, 80),
                       text=text, published_at=_published(raw))


def _published(raw: Any) -> datetime | None:
    for field in ("published_parsed", "updated_parsed", "created_parsed"):
        value = raw.get(field)
        if value:
            try:
                return datetime.fromtimestamp(calendar.timegm(value), UTC)
            except (OverflowError, ValueError, TypeError):
                continue
    return None


def words(text: str) -> set[str]:
    """Lower-case, accent-free word stems of 3+ letters, without common stopwords."""
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    found: set[str] = set()
    for word in _WORD.findall(plain):
        if word in _STOPWORDS:
            continue
        found.add(word[:-1] if len(word) > 4 and word.endswith("s") else word)
    return found


def rank(entries: Sequence[NewsEntry], interests: str, now: datetime) -> list[Pick]:
    """Best first: interest words in the title count double, in the text once; newer breaks ties."""
    wanted = words(interests)
    picks: list[Pick] = []
    for entry in entries:
        in_title = words(entry.title) & wanted
        in_text = (words(entry.text) & wanted) - in_title
        age_days = max((now - entry.sort_at).total_seconds(), 0) / 86_400
        freshness = 1 / (1 + age_days)
        score = 2 * len(in_title) + len(in_text) + freshness
        picks.append(Pick(entry, round(score, 3), tuple(sorted(in_title | in_text))))
    return sorted(picks, key=lambda p: (-p.score, -p.entry.sort_at.timestamp(), p.entry.id))


def _ask_nothing(args: BaseModel) -> Decision:
    """Read marks are local bookkeeping: no need to tell the owner each time."""
    return Decision.ALLOW


class NewsSkill(SkillPlugin):
    id = "news"
    description = (
        "news from the owner's RSS/Atom feeds: list unread entries, read one, search, "
        "mark read, and pick the best few for the owner"
    )
    routing = Routing(
        summary=(
            "The user's RSS/Atom feed subscriptions: unread articles, read an article, search the feeds, mark"
            " as read, pick the best article of the day, today's headlines from them. Feeds, RSS, suscripciones,"
            " artículos, titulares, noticias del día."
        ),
        cues=(
            r"\bfeeds?\b",
            r"\brss\b",
            # The feed reader: "owt new in me reader from the Birmingham Mail?".
            r"\b(?:my|me|the) (?:feed |rss |news )?reader\b",
            r"\b(?:el|mi) lector(?: de (?:noticias|feeds|rss))?\b",
            r"\bsuscripciones\b",
            r"\bsubscriptions\b",
            r"\bheadlines\b",
            r"\btitulares\b",
            # "the news" is what the feeds bring; "good news, …" is not a request for them.
            r"\b(?:the|today'?s|latest|any)\s+news\b",
            r"\b(?:las|[úu]ltimas)\s+noticias\b",
            r"\bnoticias\s+de\s+hoy\b",
        ),
        examples=(
            "what's new in my feeds?",
            "any unread articles in my RSS?",
            "pick the best article from my subscriptions today",
            "read me the top story from my reader",
            "search my feeds for articles about solar panels",
            "mark all my feeds as read",
            "show unread items from the tech blogs I follow",
            "qué hay nuevo en mis feeds?",
            "algún artículo interesante en el rss hoy?",
            "léeme el artículo de El País que ha llegado a mis suscripciones",
            "busca en mis suscripciones algo sobre vivienda",
            "marca todos los artículos como leídos",
            "cuál es el mejor artículo de hoy de lo que sigo?",
            "novedades en mi lector de noticias?",
        ),
    )

    settings_section = "news"
    needs = frozenset({Need.HTTP, Need.DATABASE, Need.CLOCK, Need.SCHEDULER, Need.DELIVERY})

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        return None if settings.news.feeds else "no feeds: set NEWS_FEEDS"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """The tools, and the daily digest when NEWS_DIGEST_ENABLED."""
        settings = ctx.settings
        news = cls(ctx.db, ctx.http, settings.news, ctx.clock)
        ctx.add_tools(news)
        if settings.news.digest_enabled:
            ctx.add_daily_job(NEWS_DIGEST_JOB, settings.news.digest_hour, settings.news.digest_minute,
                              _digest_job(ctx.host, news, settings))

    def __init__(self, db: Database, http: httpx.AsyncClient, settings: NewsSettings, clock: Clock) -> None:
        self._db = db
        self._http = http
        self._settings = settings
        self._clock = clock
        self._refresh_lock = asyncio.Lock()

    # -- fetching ---------------------------------------------------------------------
    async def refresh(self, *, force: bool = False) -> list[FeedResult]:
        """Fetch every configured feed not checked within NEWS_REFRESH_MINUTES (all, if forced)."""
        async with self._refresh_lock:
            now = self._clock.now()
            due: list[str] = []
            for url in self._settings.feeds:
                row = await self._db.fetchone("SELECT checked_at FROM news_feeds WHERE url = ?", (url,))
                checked = datetime.fromisoformat(row["checked_at"]) if row and row["checked_at"] else None
                if force or checked is None or now - checked >= timedelta(minutes=self._settings.refresh_minutes):
                    due.append(url)
            results = await asyncio.gather(*(self.fetch_feed(url) for url in due))
            await self._prune(now)
            return list(results)

    async def fetch_feed(self, url: str) -> FeedResult:
        """One conditional GET + parse + store; failures are recorded, never raised."""
        now = self._clock.now()
        row = await self._db.fetchone("SELECT etag, last_modified FROM news_feeds WHERE url = ?", (url,))
        headers = {
            "User-Agent": self._settings.user_agent,
            "Accept": "application/atom+xml, application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
        }
        if row is not None and row["etag"]:
            headers["If-None-Match"] = row["etag"]
        if row is not None and row["last_modified"]:
            headers["If-Modified-Since"] = row["last_modified"]
        try:
            status, response_headers, final_url, content = await self._download(url, headers)
        except ToolError as exc:
            return await self._record(url, now, FeedResult(url, FetchOutcome.FAILED, error=str(exc)))
        if status == 304:
            return await self._record(url, now, FeedResult(url, FetchOutcome.NOT_MODIFIED))
        if status != 200:
            return await self._record(url, now, FeedResult(url, FetchOutcome.FAILED, error=f"HTTP {status}"))
        try:
            feed = parse_feed(content, content_type=response_headers.get("content-type", ""), base_url=final_url)
        except ToolError as exc:
            return await self._record(url, now, FeedResult(url, FetchOutcome.FAILED, error=str(exc)))
        added = await self._store(url, feed, now)
        validators = (response_headers.get("etag"), response_headers.get("last-modified"))
        result = FeedResult(url, FetchOutcome.UPDATED, new_entries=added,
                            error="the feed has XML errors; what could be read was kept" if feed.malformed else "")
        return await self._record(url, now, result, title=feed.title, validators=validators, final_url=final_url)

    async def _download(self, url: str, headers: dict[str, str]) -> tuple[int, httpx.Headers, str, bytes]:
        limit = self._settings.max_feed_bytes
        try:
            async with self._http.stream("GET", url, headers=headers, follow_redirects=True,
                                         timeout=httpx.Timeout(self._settings.timeout_seconds)) as response:
                if response.status_code != 200:
                    return response.status_code, response.headers, str(response.url), b""
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise ToolError(f"the feed is {int(declared)} bytes, more than NEWS_MAX_FEED_BYTES ({limit})")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise ToolError(f"the feed is larger than NEWS_MAX_FEED_BYTES ({limit} bytes)")
                    chunks.append(chunk)
                return 200, response.headers, str(response.url), b"".join(chunks)
        except httpx.TooManyRedirects:
            raise ToolError("too many redirects") from None
        except httpx.TimeoutException:
            raise ToolError(f"no answer within {self._settings.timeout_seconds:g} s") from None
        except httpx.HTTPError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from None

    async def _store(self, url: str, feed: ParsedFeed, now: datetime) -> int:
        oldest = now - timedelta(days=self._settings.keep_days)
        added = 0
        async with self._db.transaction() as tx:
            for entry in feed.entries:
                if entry.published_at is not None and entry.published_at < oldest:
                    continue  # pruned already (or about to be): it must not come back as new
                published = entry.published_at.isoformat() if entry.published_at else None
                sort_at = min(entry.published_at or now, now)  # a date in the future is not news
                added += await tx.rowcount(
                    "INSERT OR IGNORE INTO news_entries(feed_url, entry_key, link, title, text, published_at,"
                    " fetched_at, sort_at) VALUES (?,?,?,?,?,?,?,?)",
                    (url, entry.key, entry.link, entry.title, entry.text, published, now.isoformat(),
                     sort_at.isoformat()),
                )
        return added

    async def _record(self, url: str, now: datetime, result: FeedResult, *, title: str | None = None,
                      validators: tuple[str | None, str | None] | None = None,
                      final_url: str | None = None) -> FeedResult:
        etag, modified = validators or (None, None)
        await self._db.execute(
            "INSERT INTO news_feeds(url, title, etag, last_modified, final_url, checked_at, outcome, error)"
            " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(url) DO UPDATE SET"
            " title = COALESCE(excluded.title, title),"
            " etag = CASE WHEN ? THEN excluded.etag ELSE etag END,"
            " last_modified = CASE WHEN ? THEN excluded.last_modified ELSE last_modified END,"
            " final_url = COALESCE(excluded.final_url, final_url),"
            " checked_at = excluded.checked_at, outcome = excluded.outcome, error = excluded.error",
            (url, title or None, etag, modified, final_url, now.isoformat(), result.outcome.value,
             result.error or None, validators is not None, validators is not None),
        )
        return result

    async def _prune(self, now: datetime) -> None:
        cutoff = (now - timedelta(days=self._settings.keep_days)).isoformat()
        await self._db.execute(
            "DELETE FROM news_entries WHERE published_at IS NOT NULL AND published_at < ?", (cutoff,)
        )

    async def _refresh_note(self) -> str:
        """Refresh what is due; a line naming the feeds that failed (stored entries still count)."""
        results = await self.refresh()
        failed = [f"{r.url} ({r.error})" for r in results if r.outcome is FetchOutcome.FAILED]
        return f"\n(could not update: {'; '.join(failed)})" if failed else ""

    # -- reading ----------------------------------------------------------------------
    async def entries(self, *, unread_only: bool = True, since: datetime | None = None,
                      limit: int = 200, feed: str | None = None) -> list[NewsEntry]:
        rows = await self._db.fetchall(
            "SELECT e.*, f.title AS feed_title FROM news_entries e LEFT JOIN news_feeds f ON f.url = e.feed_url"
            " WHERE (? = 0 OR e.read_at IS NULL) AND (? IS NULL OR e.sort_at >= ?)"
            " AND (? IS NULL OR e.feed_url = ? OR f.title LIKE ?)"
            " ORDER BY e.sort_at DESC, e.id DESC LIMIT ?",
            (int(unread_only), since.isoformat() if since else None, since.isoformat() if since else None,
             feed, feed, f"%{feed}%" if feed else None, limit),
        )
        return [_row(row) for row in rows]

    async def entry(self, entry_id: int) -> NewsEntry:
        row = await self._db.fetchone(
            "SELECT e.*, f.title AS feed_title FROM news_entries e LEFT JOIN news_feeds f ON f.url = e.feed_url"
            " WHERE e.id = ?", (entry_id,))
        if row is None:
            raise ToolError(f"there is no news entry #{entry_id}")
        return _row(row)

    async def mark_read(self, entry_ids: Sequence[int] | None) -> int:
        """Mark the given entries (or every unread one, for None) as read; returns how many changed."""
        now = self._clock.now().isoformat()
        if entry_ids is None:
            return await self._db.rowcount("UPDATE news_entries SET read_at = ? WHERE read_at IS NULL", (now,))
        marks = ",".join("?" * len(entry_ids))
        return await self._db.rowcount(
            f"UPDATE news_entries SET read_at = ? WHERE read_at IS NULL AND id IN ({marks})", (now, *entry_ids))

    async def digest(self, now: datetime, interests: str = "") -> str | None:
        """The day's best unread entries not sent in a digest before, as Markdown; None if none.

        The entries shown are marked as digested, so tomorrow's digest does not repeat them.
        """
        picks = await self.digest_picks(now, interests)
        if not picks:
            return None
        await self.mark_digested([pick.entry.id for pick in picks], now)
        return render_digest(picks)

    async def digest_picks(self, now: datetime, interests: str = "") -> list[Pick]:
        """Refresh, then rank today's undigested unread entries by NEWS_INTERESTS plus `interests`."""
        await self.refresh()
        rows = await self._db.fetchall(
            "SELECT e.*, f.title AS feed_title FROM news_entries e LEFT JOIN news_feeds f ON f.url = e.feed_url"
            " WHERE e.read_at IS NULL AND e.digested_at IS NULL AND e.sort_at >= ?"
            " ORDER BY e.sort_at DESC LIMIT 1000",
            ((now - timedelta(days=1, hours=12)).isoformat(),),
        )
        wanted = f"{self._settings.interests} {interests}"
        return rank([_row(r) for r in rows], wanted, now)[: self._settings.digest_size]

    async def mark_digested(self, entry_ids: Sequence[int], now: datetime) -> None:
        await self._db.executemany("UPDATE news_entries SET digested_at = ? WHERE id = ?",
                                   [(now.isoformat(), entry_id) for entry_id in entry_ids])

    # -- tools ------------------------------------------------------------------------
    @tool(risk=Risk.READ, untrusted_output=True)
    async def list_news(
        self,
        ctx: ToolContext,
        limit: Annotated[int, Field(ge=1, le=50, description="how many entries, newest first")] = 10,
        feed: Annotated[str | None, Field(description="only this feed (its URL or part of its title)")] = None,
    ) -> str:
        """List unread news entries from the feeds, newest first."""
        note = await self._refresh_note()
        entries = await self.entries(limit=limit, feed=feed)
        if not entries:
            return "No unread news." + note
        counted = await self._db.fetchone("SELECT COUNT(*) AS n FROM news_entries WHERE read_at IS NULL")
        total = int(counted["n"]) if counted is not None else len(entries)
        lines = [f"{total} unread entr{'y' if total == 1 else 'ies'}; newest {len(entries)}:"]
        lines += [_line(entry, ctx.timezone) for entry in entries]
        return "\n".join(lines) + note

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def read_news(self, ctx: ToolContext, entry_id: EntryId) -> str:
        """Read one news entry in full (as much as its feed carries)."""
        entry = await self.entry(entry_id)
        text = entry.text or "(the feed carries no text for this entry)"
        if len(text) > READ_CHARS:
            text = text[:READ_CHARS] + f"\n[… {len(text) - READ_CHARS} more characters not shown]"
        return "\n".join([
            f"#{entry.id} {entry.title}",
            f"Feed: {entry.feed_title or entry.feed_url}",
            f"Date: {_date(entry, ctx.timezone)}",
            f"Link: {entry.link or '(none)'}",
            f"Status: {'read' if entry.read else 'unread'}",
            "",
            text,
        ])

    @tool(risk=Risk.READ, untrusted_output=True)
    async def search_news(
        self,
        ctx: ToolContext,
        query: Annotated[str, Field(min_length=1, max_length=200, description="words to look for")],
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> str:
        """Search stored news entries (read or not) by words in their title and text."""
        note = await self._refresh_note()
        terms = [t for t in re.findall(r"[^\W_]+", query, re.UNICODE) if len(t) > 1]
        if not terms:
            raise ToolError("the query has no words to search for")
        match = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        rows = await self._db.fetchall(
            "SELECT e.*, f.title AS feed_title FROM news_entries_fts s JOIN news_entries e ON e.id = s.rowid"
            " LEFT JOIN news_feeds f ON f.url = e.feed_url WHERE news_entries_fts MATCH ?"
            " ORDER BY bm25(news_entries_fts, 3.0, 1.0), e.sort_at DESC LIMIT ?",
            (match, limit),
        )
        if not rows:
            return f"No news entries match {query!r}." + note
        lines = [f"{len(rows)} entr{'y' if len(rows) == 1 else 'ies'} matching {query!r}, best first:"]
        lines += [_line(_row(row), ctx.timezone) for row in rows]
        return "\n".join(lines) + note

    @tool(risk=Risk.WRITE, idempotent=True, policy=_ask_nothing,
          describe=lambda a: "Mark all unread news as read" if getattr(a, "everything", False)
          else f"Mark news {', '.join('#' + str(i) for i in getattr(a, 'entry_ids', None) or [])} as read")
    async def mark_news_read(
        self,
        entry_ids: Annotated[list[int] | None, Field(max_length=500, description="ids to mark read")] = None,
        everything: Annotated[bool, Field(description="mark every unread entry read")] = False,
    ) -> str:
        """Mark news entries as read (some by id, or everything unread)."""
        if everything:
            changed = await self.mark_read(None)
            return f"Marked {changed} entr{'y' if changed == 1 else 'ies'} as read."
        if not entry_ids:
            raise ToolError("say which entries (entry_ids) or set everything=true")
        existing = await self._db.fetchall(
            f"SELECT id FROM news_entries WHERE id IN ({','.join('?' * len(entry_ids))})", tuple(entry_ids))
        known = {row["id"] for row in existing}
        missing = sorted(set(entry_ids) - known)
        if not known:
            raise ToolError(f"no news entries with id {', '.join(map(str, missing))}")
        changed = await self.mark_read(sorted(known))
        result = f"Marked {changed} entr{'y' if changed == 1 else 'ies'} as read"
        result += f" ({len(known) - changed} were read already)." if changed < len(known) else "."
        return result + (f" Unknown ids: {', '.join(map(str, missing))}." if missing else "")

    @tool(risk=Risk.READ, untrusted_output=True)
    async def pick_news(
        self,
        ctx: ToolContext,
        count: Annotated[int, Field(ge=1, le=20, description="how many to pick")] = 5,
        interests: Annotated[str | None, Field(
            max_length=500, description="topics the owner cares about (from their profile), if known")] = None,
    ) -> str:
        """Pick the best few unread entries for the owner from the last days, by their interests."""
        note = await self._refresh_note()
        now = self._clock.now()
        recent = await self.entries(since=now - PICK_WINDOW, limit=1000)
        wanted = f"{self._settings.interests} {interests or ''}".strip()
        picks = rank(recent, wanted, now)[:count]
        if not picks:
            return "No unread news from the last days." + note
        header = (f"Best {len(picks)} of {len(recent)} unread entries for: {wanted}" if wanted
                  else f"No interests known, so the newest {len(picks)} of {len(recent)} unread entries")
        lines = [header + ":"]
        for pick in picks:
            why = f" [matches: {', '.join(pick.matched)}]" if pick.matched else ""
            lines.append(_line(pick.entry, ctx.timezone) + why)
        return "\n".join(lines) + note


def render_digest(picks: Sequence[Pick]) -> str:
    """The digest message, in Markdown; feed text is escaped so it cannot add links or formatting."""
    lines = [f"📰 **News digest** — {len(picks)} pick(s) of the day"]
    for number, pick in enumerate(picks, 1):
        entry = pick.entry
        title = _markdown_text(entry.title)
        shown = f"[{title}]({_link(entry.link)})" if entry.link else title
        source = _markdown_text(entry.feed_title or _host(entry.feed_url))
        lines.append(f"{number}. {shown} — _{source}_ (#{entry.id})")
        if entry.text:
            lines.append(f"   {_markdown_text(one_line(entry.text, SNIPPET_CHARS))}")
    lines.append("Ask me to read any of them by number (#id).")
    return "\n".join(lines)


def _row(row: Any) -> NewsEntry:
    return NewsEntry(
        id=row["id"],
        feed_url=row["feed_url"],
        feed_title=row["feed_title"] or "",
        link=row["link"],
        title=row["title"],
        text=row["text"],
        published_at=datetime.fromisoformat(row["published_at"]) if row["published_at"] else None,
        sort_at=datetime.fromisoformat(row["sort_at"]),
        read=row["read_at"] is not None,
    )


def _date(entry: NewsEntry, zone: ZoneInfo) -> str:
    if entry.published_at is None:
        return f"undated (first seen {entry.sort_at.astimezone(zone):%a %Y-%m-%d %H:%M})"
    return f"{entry.published_at.astimezone(zone):%a %Y-%m-%d %H:%M}"


def _line(entry: NewsEntry, zone: ZoneInfo) -> str:
    source = entry.feed_title or _host(entry.feed_url)
    snippet = one_line(entry.text, SNIPPET_CHARS) if entry.text else ""
    return f"- #{entry.id} · {source} · {_date(entry, zone)} · {entry.title}" + (f" — {snippet}" if snippet else "")


def _host(url: str) -> str:
    return httpx.URL(url).host or url


def _markdown_text(text: str) -> str:
    """Feed text in a Markdown digest: no links or formatting smuggled in through a title."""
    return re.sub(r"([\\`*_\[\]()<>#|])", r"\\\1", text)



def _link(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def _digest_job(assistant: Assistant, news: NewsSkill, settings: Settings) -> Callable[[datetime], Awaitable[None]]:
    """Each user gets the picks that fit NEWS_INTERESTS plus their profile's preferences and work."""
    profiles = ProfileStore(assistant.deps.db, settings.memory.profile_budget_chars)

    async def interests_of(user_key: str) -> str:
        try:
            profile = await profiles.get(user_key)
        except Exception:  # no profile yet (or memory off): the configured interests still work
            log.exception("news digest: could not read the profile of %s", user_key)
            return ""
        wanted = (ProfileSection.PREFERENCES, ProfileSection.WORK)
        return " ".join(line for section in wanted for line in profile.sections.get(section, ()))

    async def post_digest(fire_time: datetime) -> None:
        users = settings.news.digest_users or await assistant.chats.users()
        shown: set[int] = set()
        for user_key in users:
            picks = await news.digest_picks(fire_time, await interests_of(user_key))
            if not picks:
                continue
            await assistant.deliver(user_key, OutboundMessage(render_digest(picks), MessageKind.SCHEDULED))
            shown.update(pick.entry.id for pick in picks)
        # Marked after every user got theirs, so one user's digest does not empty another's.
        await news.mark_digested(sorted(shown), fire_time)
        if not shown:
            log.info("news digest: nothing new to post")

    return post_digest
