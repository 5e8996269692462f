"""The inbox endpoint over real HTTP, and the inbox tools and briefing section."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from pydantic import SecretStr

from bot.clock import ManualClock
from bot.config import InboxSettings
from bot.inbox_server import InboxServer
from memory.db import Database
from tests.skills.email.toolcall import bound, call, tool_context
from tools.skills.inbox import InboxSkill, Notification, NotificationStatus, classify

TOKEN = "test-inbox-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def inbox(db: Database, clock: ManualClock) -> InboxSkill:
    return InboxSkill(db, clock)


@pytest.fixture
async def server(inbox: InboxSkill) -> AsyncIterator[InboxServer]:
    settings = InboxSettings(_env_file=None, enabled=True, port=0, token=SecretStr(TOKEN),  # type: ignore[call-arg]
                             max_body_bytes=4096)
    running = InboxServer(inbox, settings)
    await running.start()
    yield running
    await running.stop()


@pytest.fixture
async def client(server: InboxServer) -> AsyncIterator[httpx.AsyncClient]:
    # A generous timeout: a thousand requests queue on one SQLite writer; nothing here measures speed.
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(base_url=server.url.removesuffix("/inbox"), timeout=120, limits=limits) as http:
        yield http


async def _count(db: Database) -> int:
    row = await db.fetchone("SELECT COUNT(*) AS n FROM inbox_notifications")
    assert row is not None
    return int(row["n"])


async def test_json_and_plain_text_are_stored_per_source(client: httpx.AsyncClient, db: Database) -> None:
    answer = await client.post("/inbox/monitor", headers=AUTH, json={
        "title": "web-a is down", "message": "HTTP 502 from https://a.example", "priority": "high",
        "tags": ["warning", "web"], "url": "https://status.example/a", "extra_field": {"ignored": True}})
    assert answer.status_code == 200 and answer.json()["source"] == "monitor"
    plain = await client.post("/inbox/watchtower", content=b"Updated container nginx to 1.27.4",
                              headers={**AUTH, "Title": "Container updated", "X-Tags": "whale,update",
                                       "Priority": "2", "Content-Type": "text/plain"})
    assert plain.status_code == 200
    in_body = await client.post("/inbox", headers={"X-Inbox-Token": TOKEN},
                                json={"source": "backup", "text": "Nightly backup finished", "status": "ok"})
    assert in_body.status_code == 200
    ntfy_json = await client.post("/inbox", headers=AUTH, json={"topic": "ntfy", "message": "hi", "click": "https://x.example"})
    assert ntfy_json.status_code == 200 and ntfy_json.json()["source"] == "ntfy"
    rows = await db.fetchall("SELECT * FROM inbox_notifications WHERE source != 'ntfy' ORDER BY id")
    assert [(r["source"], r["status"], r["subject"]) for r in rows] == [
        ("monitor", "problem", "web-a"),
        ("watchtower", "info", "Container updated"),
        ("backup", "recovered", "Nightly backup finished"),
    ]
    assert (rows[0]["priority"], json.loads(rows[0]["tags"]), rows[0]["url"]) == \
        (4, ["warning", "web"], "https://status.example/a")
    assert (rows[1]["message"], rows[1]["priority"], json.loads(rows[1]["tags"])) == \
        ("Updated container nginx to 1.27.4", 2, ["whale", "update"])


async def test_wrong_or_missing_token_is_refused_and_stores_nothing(
    client: httpx.AsyncClient, db: Database
) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"X-Inbox-Token": TOKEN[:-1]},
                    {"Authorization": TOKEN}):
        answer = await client.post("/inbox/monitor", headers=headers, json={"message": "x"})
        assert answer.status_code == 401, headers
        assert "token" in answer.json()["error"]
    assert await _count(db) == 0


async def test_oversized_bodies_are_refused(client: httpx.AsyncClient, db: Database) -> None:
    big = "x" * 5000
    answer = await client.post("/inbox/monitor", headers=AUTH, json={"message": big})
    assert answer.status_code == 413 and "4096 bytes" in answer.json()["error"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the streamed check must catch it
        for _ in range(10):
            yield b"y" * 1000

    streamed = await client.post("/inbox/monitor", headers={**AUTH, "Content-Type": "text/plain"}, content=chunks())
    assert streamed.status_code == 413
    assert await _count(db) == 0


async def test_malformed_requests_get_clear_errors(client: httpx.AsyncClient, db: Database) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"content": b'{"message": "unterminated', "headers": {"Content-Type": "application/json"}},
         "not valid JSON"),
        ({"json": ["a", "list"]}, "must be an object"),
        ({"json": {"title": "", "message": "  "}}, "needs a \"message\""),
        ({"json": {"message": "x", "tags": 5}}, "does not fit"),
        ({"content": b"", "headers": {"Content-Type": "text/plain"}}, "empty body"),
    ]
    for kwargs, expected in cases:
        headers = {**AUTH, **kwargs.pop("headers", {})}
        answer = await client.post("/inbox/monitor", headers=headers, **kwargs)
        assert answer.status_code == 400, kwargs
        assert expected in answer.json()["error"], answer.json()
    bad_source = await client.post("/inbox/..%2Fetc", headers=AUTH, json={"message": "x"})
    assert bad_source.status_code in (400, 404)
    no_source = await client.post("/inbox", headers=AUTH, json={"message": "x"})
    assert no_source.status_code == 400 and "source" in no_source.json()["error"]
    assert await _count(db) == 0


async def test_a_burst_of_a_thousand_loses_nothing(
    client: httpx.AsyncClient, db: Database, inbox: InboxSkill, clock: ManualClock
) -> None:
    in_flight = asyncio.Semaphore(50)  # a burst, yet within what one client's pool handles gracefully

    async def push(n: int) -> int:
        async with in_flight:
            return await _push(n)

    async def _push(n: int) -> int:
        site = f"site-{n % 30}"
        if n < 30:
            body = {"title": f"{site} is down", "message": "timeout"}
        elif n < 60:
            body = {"title": f"{site} is back up", "message": "200 OK"}
        else:
            body = {"title": f"Heartbeat {n}", "message": "all good"}
        answer = await client.post("/inbox/monitor" if n < 100 else f"/inbox/source-{n % 7}", headers=AUTH,
                                   json=body)
        return answer.status_code

    ordered = list(range(1000))
    codes = []
    for start in range(0, 60, 10):  # downs, then recoveries, in order; the rest all at once
        codes += await asyncio.gather(*(push(n) for n in ordered[start:start + 10]))
    codes += await asyncio.gather(*(push(n) for n in ordered[60:]))
    assert codes == [200] * 1000
    assert await _count(db) == 1000
    ids = [row["id"] for row in await db.fetchall("SELECT id FROM inbox_notifications")]
    assert len(set(ids)) == 1000

    summary = await inbox.summarise(clock.now() - timedelta(hours=1), ZoneInfo("Europe/Madrid"), source="monitor")
    assert summary is not None
    assert "- monitor: 100 notification(s): 30 problem (down/failed), 30 recovered (back up/resolved), 40 other." \
        in summary
    assert "Nothing is still down." in summary


async def test_summary_names_what_is_still_down_and_the_briefing_section(
    inbox: InboxSkill, db: Database, clock: ManualClock
) -> None:
    await inbox.receive(Notification("monitor", "timeout", title="web-a is down"))
    await clock.advance(60)
    await inbox.receive(Notification("monitor", "refused", title="db is down"))
    await clock.advance(60)
    await inbox.receive(Notification("monitor", "200", title="web-a is back up"))
    await inbox.receive(Notification("ci", "Pipeline #42 failed on main", status="failed", subject="pipeline main"))
    ctx = tool_context(db, clock)
    text = await call(inbox, "inbox_summary", ctx)
    assert text.startswith("Last 24 h. 4 notification(s) from 2 source(s):")
    assert "- monitor: 3 notification(s): 2 problem (down/failed), 1 recovered (back up/resolved)." in text
    assert "Still wrong: db (since Mon 09:01)." in text
    assert "- ci: 1 notification(s): 1 problem (down/failed). Still wrong: pipeline main" in text

    listing = await call(inbox, "inbox_list", ctx, only_problems=True)
    assert listing.startswith("3 notification(s)") and "db is down" in listing.splitlines()[2]
    assert "web-a is back up" not in listing

    local = clock.now().astimezone(ZoneInfo("Europe/Madrid"))
    section = await inbox.briefing_section("console:owner", local)
    assert section is not None and section.startswith("Inbox (last 24 h): 4 notification(s)")
    assert await inbox.briefing_section("console:owner", local + timedelta(days=2)) is None
    empty = await call(inbox, "inbox_summary", ctx, hours=1, source="nothing-here")
    assert empty.startswith("No notifications in the last 1 h from nothing-here.")
    assert "Known sources: ci (1), monitor (3)." in empty or "Known sources: monitor (3), ci (1)." in empty


async def test_old_notifications_are_dropped_after_keep_days(db: Database, clock: ManualClock) -> None:
    inbox = InboxSkill(db, clock, keep_days=2)
    await inbox.receive(Notification("a", "old one"))
    await clock.advance(3 * 86_400)
    await inbox.receive(Notification("a", "new one"))
    rows = await db.fetchall("SELECT message FROM inbox_notifications")
    assert [r["message"] for r in rows] == ["new one"]


def test_classification_words_and_flags(inbox: InboxSkill) -> None:
    assert classify(None, "[web-a] [🔴 Down]", "") is NotificationStatus.PROBLEM
    assert classify(None, "[web-a] [✅ Up]", "") is NotificationStatus.RECOVERED
    assert classify(None, "Backup finished", "set up the new disk") is NotificationStatus.INFO
    assert classify("UP", "whatever", "") is NotificationStatus.RECOVERED
    assert classify("firing", "", "") is NotificationStatus.PROBLEM
    assert classify("deployed", "web-a is down", "") is NotificationStatus.INFO  # the sender's word wins
    for name in ("inbox_summary", "inbox_list"):
        assert bound(inbox, name).spec.untrusted_output
