"""Installed skills: a real package (dist-info with an entry point in `mayordomo.skills`) on the
path, off until named in SKILLS_ENABLED, then routed to and run through the same policy,
approvals, honesty check and accounting as a built-in skill, in the app as it is built."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from bot.app import build_app
from bot.clock import ManualClock
from bot.core.events import Platform, TextMessage
from bot.scheduler import Scheduler
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, RecordingMessenger, build_assistant, make_settings
from tools.installing import enabled_packages, install_skills, skill_context
from tools.plugin import Need, SkillPlugin
from tools.skills.diary import DiarySkill

EXAMPLE = Path(__file__).resolve().parent / "example_skill"
ROOT = Path(__file__).resolve().parents[2]


def test_an_installed_skill_is_not_even_imported_until_enabled() -> None:
    probe = ("import sys\nfrom tools.installing import enabled_packages\n"
             "print(enabled_packages([]), 'mayordomo_shopping' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(EXAMPLE)])}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "([], {}) False"


def test_enabled_names_load_the_entry_point_and_unknown_ones_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    loaded, problems = enabled_packages(["shopping", "weather_ext"])
    assert [plugin.id for plugin in loaded] == ["shopping"]
    assert issubclass(loaded[0], SkillPlugin)
    assert list(problems) == ["weather_ext"]
    assert "no installed package offers the skill 'weather_ext'" in problems["weather_ext"]


class Summary(SkillPlugin):
    id = "summary"
    description = "summaries written by the model"
    needs = frozenset({Need.MODEL})  # no install of its own: the default adds its tools


async def test_a_skill_whose_needs_are_not_built_stays_off_and_says_why(
        tmp_path: Path, db: Database, clock: ManualClock) -> None:
    settings = make_settings(tmp_path)
    assistant, _ = await build_assistant(settings, db, clock, with_model=False)
    async with httpx.AsyncClient() as http:
        installed = await install_skills([Summary, DiarySkill], skill_context(assistant, Scheduler(db, clock), http))
    assert installed.installed == ()
    assert installed.skipped == {"summary": "it needs a model: set LLM_BASE_URL and LLM_CHAT_MODEL",
                                 "diary": "it needs the memory service, which this app did not open"}
    assert sorted(assistant.deps.registry.skills) == ["core"]


@pytest.mark.timeout(900)  # builds the whole app: the router embeds every example on a cold cache
async def test_enabled_installed_skill_is_routed_to_and_its_destructive_tool_waits_for_approval(
        tmp_path: Path, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.delenv("SHOPPING_FILE", raising=False)
    (tmp_path / "shopping.txt").write_text("milk\nbread\n", encoding="utf-8")
    settings = make_settings(tmp_path, model.base_url, core={"skills_enabled": ["shopping", "weather_ext"]})
    with caplog.at_level(logging.INFO, logger="tools.installing"):
        app = await build_app(settings)
    try:
        assert app.skills is not None and "shopping" in app.skills.installed
        assert "weather_ext" in app.skills.skipped  # named but not installed: off, with a reason
        log = caplog.text
        assert "skill weather_ext is off" in log and "skill agenda is off: no calendar server" in log
        assert app.assistant.deps.registry.get("remove_all_shopping_items") is not None

        messenger = RecordingMessenger(platform=Platform.CONSOLE, auto_decide=True)
        messenger.assistant = app.assistant
        app.assistant.add_messenger(messenger)
        model.call("remove_all_shopping_items")
        model.respond("Done: I cleared your shopping list.")
        await app.assistant.handle(TextMessage(OWNER, "clear my shopping list, I bought everything"))

        assert "remove_all_shopping_items" in model.tool_names(0)  # routed: the skill's tools were offered
        [approval] = messenger.approvals
        assert approval.tool == "remove_all_shopping_items" and approval.description == "Clear the whole shopping list"
        assert (tmp_path / "shopping.txt").read_text(encoding="utf-8") == ""
        assert messenger.texts[-1] == "Done: I cleared your shopping list."
        turn = await app.db.fetchone("SELECT route_json, outcome, exposed_tool_tokens FROM turns")
        assert "shopping" in json.loads(turn["route_json"])["skills"]
        assert turn["outcome"] == "answered" and turn["exposed_tool_tokens"] > 0
        call = await app.db.fetchone("SELECT decision, status FROM tool_calls WHERE tool = 'remove_all_shopping_items'")
        assert (call["decision"], call["status"]) == ("require_approval", "ok")
    finally:
        for close in app.closers:
            await close()
        if app.model is not None:
            await app.model.close()
        await app.http.aclose()
        await app.db.close()
