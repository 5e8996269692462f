"""The news tools as the model calls them, and the daily digest text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.errors import ToolError
from memory.db import Database
from tests.skills.email.toolcall import bound, call, tool_context
from tests.skills.news.conftest import NewsFactory
from tests.skills.news.feedserver import FeedServer, Item, rss
from tools.policy import Policy
from tools.registry import Decision

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _ids(listing: str) -> list[int]:
    return [int(line.split()[1].lstrip("#")) for line in listing.splitlines() if line.startswith("- #")]


@pytest.fixture
def tech_and_sport(feeds: FeedServer) -> list[str]:
    feeds.set("/tech.xml", body=rss("Tecnología", [
        Item(title="Python 3.15 released with faster startup", link="https://t.example/py", guid="t1",
             description="<p>The <b>Python</b> team announces a release focused on performance.</p>",
             published=NOW - timedelta(hours=5)),
        Item(title="New GPU prices", link="https://t.example/gpu", guid="t2",
             description="Graphics cards get cheaper.", published=NOW - timedelta(hours=1)),
    ]))
    feeds.set("/sport.xml", body=rss("Deportes", [
        Item(title="El Real Madrid gana la liga", link="https://s.example/liga", guid="s1",
             description="Celebración en Cibeles tras el partido.", published=NOW - timedelta(hours=2)),
        Item(title="Maratón de Sevilla: récord de participación", link="https://s.example/maraton", guid="s2",
             description="Más de 14.000 corredores.", published=NOW - timedelta(days=5)),
    ]))
    return ["/tech.xml", "/sport.xml"]


async def test_list_read_and_mark_read(
    make_news: NewsFactory, tech_and_sport: list[str], db: Database, clock: ManualClock
) -> None:
    news = make_news(*tech_and_sport)
    ctx = tool_context(db, clock)
    listing = await call(news, "list_news", ctx)
    assert listing.startswith("4 unread entries; newest 4:")
    lines = listing.splitlines()[1:]
    assert "New GPU prices" in lines[0] and "Maratón de Sevilla" in lines[-1]  # newest first
    assert "Tecnología" in lines[0] and "Mon 2026-03-02 08:00" in lines[0]  # 07:00 UTC in Madrid

    python_id = next(i for i, line in zip(_ids(listing), lines, strict=True) if "Python" in line)
    reading = await call(news, "read_news", ctx, entry_id=python_id)
    assert reading.startswith(f"#{python_id} Python 3.15 released")
    assert "Link: https://t.example/py" in reading and "Status: unread" in reading
    assert "The Python team announces a release focused on performance." in reading and "<b>" not in reading

    assert await call(news, "mark_news_read", ctx, entry_ids=[python_id, 999]) == \
        "Marked 1 entry as read. Unknown ids: 999."
    assert await call(news, "mark_news_read", ctx, entry_ids=[python_id]) == \
        "Marked 0 entries as read (1 were read already)."
    assert python_id not in _ids(await call(news, "list_news", ctx))
    assert "Status: read" in await call(news, "read_news", ctx, entry_id=python_id)
    assert _ids(await call(news, "list_news", ctx, feed="Deportes")) != []
    assert all("Deportes" in line for line in (await call(news, "list_news", ctx, feed="Deportes")).splitlines()[1:])

    assert await call(news, "mark_news_read", ctx, everything=True) == "Marked 3 entries as read."
    assert (await call(news, "list_news", ctx)).startswith("No unread news.")
    with pytest.raises(ToolError, match="say which entries"):
        await call(news, "mark_news_read", ctx)
    with pytest.raises(ToolError, match="no news entries with id 12345"):
        await call(news, "mark_news_read", ctx, entry_ids=[12345])
    with pytest.raises(ToolError, match="no news entry #777"):
        await call(news, "read_news", ctx, entry_id=777)


async def test_search_finds_words_without_accents(
    make_news: NewsFactory, tech_and_sport: list[str], db: Database, clock: ManualClock
) -> None:
    news = make_news(*tech_and_sport)
    ctx = tool_context(db, clock)
    found = await call(news, "search_news", ctx, query="maraton participacion")
    assert found.startswith("1 entry matching") and "Maratón de Sevilla" in found
    assert "Python 3.15" in await call(news, "search_news", ctx, query="performance")
    assert (await call(news, "search_news", ctx, query="cricket")).startswith("No news entries match 'cricket'")
    with pytest.raises(ToolError, match="no words"):
        await call(news, "search_news", ctx, query="?!")
    # Quotes and FTS syntax in the query are words, not operators.
    assert "Real Madrid" in await call(news, "search_news", ctx, query='"liga" OR NEAR(')


async def test_pick_uses_interests_and_falls_back_to_newest(
    make_news: NewsFactory, tech_and_sport: list[str], db: Database, clock: ManualClock
) -> None:
    ctx = tool_context(db, clock)
    plain = make_news(*tech_and_sport)
    newest = await call(plain, "pick_news", ctx, count=2)
    assert newest.startswith("No interests known, so the newest 2 of 3 unread entries")  # the 5-day-old is out
    assert "GPU" in newest.splitlines()[1] and "Real Madrid" in newest.splitlines()[2]

    picked = await call(plain, "pick_news", ctx, count=2, interests="python, rendimiento y performance")
    first = picked.splitlines()[1]
    assert "Python 3.15" in first and "[matches: performance, python]" in first

    configured = make_news(*tech_and_sport, interests="fútbol, liga, Madrid")
    top = (await call(configured, "pick_news", ctx, count=1)).splitlines()[1]
    assert "Real Madrid gana la liga" in top and "matches: liga, madrid" in top


async def test_unreachable_feed_still_lists_what_is_stored(
    make_news: NewsFactory, feeds: FeedServer, tech_and_sport: list[str], db: Database, clock: ManualClock
) -> None:
    news = make_news(*tech_and_sport)
    ctx = tool_context(db, clock)
    await call(news, "list_news", ctx)
    feeds.set("/tech.xml", status=503, body=b"down")
    await clock.advance(3600)
    listing = await call(news, "list_news", ctx)
    assert len(_ids(listing)) == 4
    assert listing.endswith(f"(could not update: {feeds.url('/tech.xml')} (HTTP 503))")


async def test_digest_picks_marks_and_does_not_repeat(
    make_news: NewsFactory, feeds: FeedServer, tech_and_sport: list[str], db: Database, clock: ManualClock
) -> None:
    news = make_news(*tech_and_sport, interests="python", digest_size=2)
    text = await news.digest(clock.now())
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "📰 **News digest** — 2 pick(s) of the day"
    assert lines[1].startswith("1. [Python 3.15 released with faster startup](https://t.example/py) — _Tecnología_")
    assert lines[-1].startswith("Ask me to read any of them")
    assert "Maratón" not in text  # five days old: not today's news
    again = await news.digest(clock.now())
    assert again is not None and "Python" not in again and "1. [El Real Madrid gana la liga]" in again
    assert await news.digest(clock.now()) is None


async def test_digest_escapes_markdown_from_the_feed(
    make_news: NewsFactory, feeds: FeedServer, db: Database, clock: ManualClock
) -> None:
    feeds.set("/evil.xml", body=rss("Evil *feed*", [Item(
        title="Click [here](https://phish.example/login) *now*", link="https://evil.example/a(b)", guid="e",
        published=NOW)]))
    text = await make_news("/evil.xml").digest(clock.now())
    assert text is not None
    assert r"[Click \[here\]\(https://phish.example/login\) \*now\*](https://evil.example/a%28b%29)" in text
    assert r"_Evil \*feed\*_" in text


def test_flags_and_policy(make_news: NewsFactory) -> None:
    news = make_news("/x.xml")
    for name in ("list_news", "read_news", "search_news", "pick_news"):
        assert bound(news, name).spec.untrusted_output, name
    mark = bound(news, "mark_news_read")
    args = mark.parse({"entry_ids": [3, 4]})
    assert mark.describe(args) == "Mark news #3, #4 as read"
    assert Policy().decide(mark, args, untrusted_seen=True) is Decision.ALLOW
    assert mark.describe(mark.parse({"everything": True})) == "Mark all unread news as read"
