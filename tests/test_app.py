"""The whole app wired from settings, offline: every configured part is really plugged in."""

from __future__ import annotations

from pathlib import Path

from bot.app import build_app
from bot.core.events import CommandMessage, Platform
from tests.support import OWNER, RecordingMessenger, make_settings


async def test_build_app_wires_skills_commands_router_and_jobs(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, "http://127.0.0.1:9/v1",
        notes={"folder": tmp_path / "notes"},
        news={"feeds": ["http://127.0.0.1:9/feed.xml"]},
        inbox={"enabled": True, "token": "t" * 24, "port": 0},
    )
    steps: list[str] = []
    app = await build_app(settings, progress=steps.append)
    try:
        # First start says what it is doing before the slow part (the router index).
        assert steps[0].startswith("opening the memory at") and any("indexing" in s for s in steps)
        skills = set(app.assistant.deps.registry.skills)
        assert {"core", "environment", "notes", "web", "tasks", "memory", "timeline", "diary",
                "news", "inbox"} <= skills
        assert {"stats", "forget", "help", "location", "reset"} <= set(app.assistant.commands)
        assert type(app.assistant.deps.router).__name__ != "AllSkillsRouter"
        assert app.briefing is not None and app.skills is not None
        assert app.skills.installed == ("core", "tasks", "environment", "notes", "web", "memory", "timeline",
                                        "diary", "news", "inbox")
        assert set(app.skills.skipped) == {"agenda", "email"}  # not configured: off, each with a reason
        assert "CALDAV_URL" in app.skills.skipped["agenda"]
        assert [type(service).__name__ for service in app.skills.services] == ["InboxServer"]
        assert app.briefing.section_names == ["Weather", "Inbox"]
        messenger = RecordingMessenger(platform=Platform.CONSOLE)
        app.assistant.add_messenger(messenger)
        await app.assistant.handle(CommandMessage(OWNER, "stats"))
        assert "Last 7 days" in messenger.texts[-1]
    finally:
        for close in app.closers:
            await close()
        await app.http.aclose()
        await app.db.close()
