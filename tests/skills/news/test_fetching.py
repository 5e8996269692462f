"""Fetching feeds from a local HTTP server: validators, 304s, redirects, broken, huge, odd feeds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import ManualClock
from memory.db import Database
from tests.skills.news.conftest import NewsFactory
from tests.skills.news.feedserver import FeedServer, Item, atom, rss
from tools.skills.news import FetchOutcome

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _items(prefix: str, count: int, start: int = 0) -> list[Item]:
    return [Item(title=f"{prefix} {n}", link=f"https://example.org/{prefix}/{n}", guid=f"{prefix}-{n}",
                 description=f"<p>Texto de <b>{prefix}</b> número {n}</p>",
                 published=NOW - timedelta(hours=n + 1)) for n in range(start, start + count)]


async def _titles(db: Database) -> list[str]:
    return [row["title"] for row in await db.fetchall("SELECT title FROM news_entries ORDER BY id")]


async def test_etag_gives_304_and_nothing_is_parsed_twice(
    feeds: FeedServer, make_news: NewsFactory, db: Database
) -> None:
    feeds.set("/feed.xml", body=rss("Diario", _items("a", 3)), etag='"v1"')
    news = make_news("/feed.xml")

    [first] = await news.refresh(force=True)
    assert (first.outcome, first.new_entries) == (FetchOutcome.UPDATED, 3)
    assert await _titles(db) == ["a 0", "a 1", "a 2"]

    [second] = await news.refresh(force=True)
    assert second.outcome is FetchOutcome.NOT_MODIFIED and second.new_entries == 0
    assert feeds.hits("/feed.xml")[-1].get("If-None-Match") == '"v1"'

    feeds.set("/feed.xml", body=rss("Diario", _items("a", 4)), etag='"v2"')
    [third] = await news.refresh(force=True)
    assert (third.outcome, third.new_entries) == (FetchOutcome.UPDATED, 1)
    assert len(await _titles(db)) == 4
    row = await db.fetchone("SELECT title, etag FROM news_feeds")
    assert row is not None
    assert (row["title"], row["etag"]) == ("Diario", '"v2"')


async def test_last_modified_is_sent_back(feeds: FeedServer, make_news: NewsFactory) -> None:
    stamp = "Mon, 02 Mar 2026 07:00:00 GMT"
    feeds.set("/lm.xml", body=rss("LM", _items("lm", 1)), last_modified=stamp)
    news = make_news("/lm.xml")
    await news.refresh(force=True)
    [again] = await news.refresh(force=True)
    assert again.outcome is FetchOutcome.NOT_MODIFIED
    assert feeds.hits("/lm.xml")[-1].get("If-Modified-Since") == stamp


async def test_a_304_keeps_the_validators(feeds: FeedServer, make_news: NewsFactory, db: Database) -> None:
    feeds.set("/feed.xml", body=rss("D", _items("k", 1)), etag='"e"')
    news = make_news("/feed.xml")
    for _ in range(3):
        await news.refresh(force=True)
    assert [h.get("If-None-Match") for h in feeds.hits("/feed.xml")] == [None, '"e"', '"e"']


async def test_redirects_are_followed_and_loops_fail_alone(
    feeds: FeedServer, make_news: NewsFactory, db: Database
) -> None:
    feeds.set("/moved.xml", redirect_to="/new-home.xml")
    feeds.set("/new-home.xml", body=atom("Atom home", _items("atom", 2)))
    feeds.set("/loop.xml", redirect_to="/loop.xml")
    news = make_news("/moved.xml", "/loop.xml")
    results = {r.url.rsplit("/", 1)[1]: r for r in await news.refresh(force=True)}
    assert results["moved.xml"].outcome is FetchOutcome.UPDATED and results["moved.xml"].new_entries == 2
    assert results["loop.xml"].outcome is FetchOutcome.FAILED and "redirects" in results["loop.xml"].error
    row = await db.fetchone("SELECT final_url FROM news_feeds WHERE url = ?", (feeds.url("/moved.xml"),))
    assert row is not None
    assert row["final_url"] == feeds.url("/new-home.xml")
    stored = await db.fetchall("SELECT DISTINCT feed_url FROM news_entries")
    assert [r["feed_url"] for r in stored] == [feeds.url("/moved.xml")]


async def test_bad_xml_http_errors_and_missing_feeds_are_recorded_not_raised(
    feeds: FeedServer, make_news: NewsFactory, db: Database
) -> None:
    feeds.set("/good.xml", body=rss("Good", _items("g", 2)))
    feeds.set("/garbage.xml", body=b"<html><body>Oops, <b>not a feed</b></body></html>", content_type="text/html")
    feeds.set("/binary.xml", body=bytes(range(256)) * 10)
    feeds.set("/error.xml", status=500, body=b"boom")
    news = make_news("/good.xml", "/garbage.xml", "/binary.xml", "/error.xml", "/missing.xml")
    results = {r.url.rsplit("/", 1)[1]: r for r in await news.refresh(force=True)}
    assert results["good.xml"].new_entries == 2
    assert "not a readable RSS/Atom feed" in results["garbage.xml"].error
    assert "not a readable RSS/Atom feed" in results["binary.xml"].error
    assert results["error.xml"].error == "HTTP 500"
    assert results["missing.xml"].error == "HTTP 404"
    assert await _titles(db) == ["g 0", "g 1"]
    errors = await db.fetchall("SELECT url, outcome, error FROM news_feeds WHERE outcome = 'failed'")
    assert len(errors) == 4


async def test_malformed_but_readable_feed_keeps_what_it_can(
    feeds: FeedServer, make_news: NewsFactory, db: Database
) -> None:
    body = rss("Sloppy", _items("s", 2)).replace(b"<title>s 1</title>", b"<title>s 1 & friends</title>")
    feeds.set("/sloppy.xml", body=body)
    news = make_news("/sloppy.xml")
    [result] = await news.refresh(force=True)
    assert result.outcome is FetchOutcome.UPDATED and result.new_entries >= 1
    assert "XML errors" in result.error
    assert "s 0" in await _titles(db)


async def test_huge_feeds_are_refused_with_or_without_content_length(
    feeds: FeedServer, make_news: NewsFactory, db: Database
) -> None:
    many = rss("Huge", _items("h", 400)) + b"<!--" + b"x" * 60_000 + b"-->"
    feeds.set("/huge.xml", body=many)
    feeds.set("/huge-chunked.xml", body=many, chunked=True)
    feeds.set("/fine.xml", body=rss("Fine", _items("f", 1)))
    news = make_news("/huge.xml", "/huge-chunked.xml", "/fine.xml", max_feed_bytes=50_000)
    results = {r.url.rsplit("/", 1)[1]: r for r in await news.refresh(force=True)}
    for name in ("huge.xml", "huge-chunked.xml"):
        assert results[name].outcome is FetchOutcome.FAILED
        assert "NEWS_MAX_FEED_BYTES" in results[name].error
    assert await _titles(db) == ["f 0"]


async def test_entries_without_dates_or_ids_are_kept_once(
    feeds: FeedServer, make_news: NewsFactory, db: Database, clock: ManualClock
) -> None:
    items = [
        Item(title="Sin fecha ni guid", link="https://example.org/nodate"),
        Item(title="Ni enlace ni guid", description="Solo texto"),
        Item(title="", description="Ni título: solo una descripción bastante larga"),
        Item(title="", description=""),  # nothing at all: dropped
    ]
    feeds.set("/odd.xml", body=rss("Odd", items), etag='"1"')
    news = make_news("/odd.xml")
    [result] = await news.refresh(force=True)
    assert result.new_entries == 3
    # The server forgets its ETag and sends everything again: still stored once.
    feeds.set("/odd.xml", body=rss("Odd", items), etag='"2"')
    await clock.advance(3600)
    [again] = await news.refresh(force=True)
    assert again.outcome is FetchOutcome.UPDATED and again.new_entries == 0
    rows = await db.fetchall("SELECT title, published_at, entry_key, sort_at FROM news_entries ORDER BY id")
    assert [r["title"] for r in rows] == ["Sin fecha ni guid", "Ni enlace ni guid",
                                         "Ni título: solo una descripción bastante larga"]
    assert all(r["published_at"] is None for r in rows)
    assert rows[0]["entry_key"] == "https://example.org/nodate"
    assert rows[1]["entry_key"].startswith("sha1:")
    assert all(r["sort_at"] == NOW.isoformat() for r in rows)  # first seen, not the re-fetch time


async def test_same_link_in_two_feeds_is_one_entry(feeds: FeedServer, make_news: NewsFactory, db: Database) -> None:
    shared = Item(title="Noticia compartida", link="https://example.org/shared", guid="one-guid")
    feeds.set("/one.xml", body=rss("One", [shared]))
    feeds.set("/two.xml", body=rss("Two", [Item(title="Noticia compartida (copia)", link="https://example.org/shared",
                                               guid="other-guid")]))
    news = make_news("/one.xml", "/two.xml")
    await news.refresh(force=True)
    assert await _titles(db) in (["Noticia compartida"], ["Noticia compartida (copia)"])


async def test_future_dates_do_not_stay_on_top(feeds: FeedServer, make_news: NewsFactory, db: Database) -> None:
    feeds.set("/f.xml", body=rss("F", [Item(title="Del futuro", guid="fut", published=NOW + timedelta(days=30))]))
    news = make_news("/f.xml")
    await news.refresh(force=True)
    row = await db.fetchone("SELECT published_at, sort_at FROM news_entries")
    assert row is not None
    assert row["published_at"] == (NOW + timedelta(days=30)).isoformat() and row["sort_at"] == NOW.isoformat()


async def test_feedparser_never_reads_a_local_file_named_by_the_server(
    feeds: FeedServer, make_news: NewsFactory, db: Database, tmp_path: Path
) -> None:
    secret = tmp_path / "secret-feed.xml"
    secret.write_bytes(rss("LOCAL SECRET", [Item(title="TOP-SECRET-LOCAL-FILE", guid="s")]))
    feeds.set("/path.xml", body=str(secret).encode(), content_type="text/plain")
    xxe = (b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY leak SYSTEM "file://' + str(secret).encode()
           + b'">]><rss version="2.0"><channel><title>X</title><item><title>Leak: &leak;</title>'
           b"<guid>x</guid></item></channel></rss>")
    feeds.set("/xxe.xml", body=xxe)
    news = make_news("/path.xml", "/xxe.xml")
    await news.refresh(force=True)
    stored = " ".join(await _titles(db))
    texts = " ".join(r["text"] for r in await db.fetchall("SELECT text FROM news_entries"))
    assert "TOP-SECRET-LOCAL-FILE" not in stored + texts
    titles = await db.fetchall("SELECT title FROM news_feeds")
    assert all(r["title"] != "LOCAL SECRET" for r in titles)


async def test_refresh_waits_for_the_interval_and_prunes_old_entries(
    feeds: FeedServer, make_news: NewsFactory, db: Database, clock: ManualClock
) -> None:
    old = Item(title="Antigua", guid="old", published=NOW - timedelta(days=20))
    feeds.set("/feed.xml", body=rss("D", [*_items("n", 1), old]))
    news = make_news("/feed.xml", refresh_minutes=30, keep_days=30)
    await news.refresh()
    await news.refresh()
    assert len(feeds.hits("/feed.xml")) == 1
    await clock.advance(31 * 60)
    await news.refresh()
    assert len(feeds.hits("/feed.xml")) == 2
    assert sorted(await _titles(db)) == ["Antigua", "n 0"]
    # Eleven days later "Antigua" is past keep_days: pruned, and the feed cannot bring it back.
    clock.set(NOW + timedelta(days=11))
    await news.refresh()
    assert await _titles(db) == ["n 0"]
    await clock.advance(3600)
    await news.refresh(force=True)
    assert await _titles(db) == ["n 0"]
