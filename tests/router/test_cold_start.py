"""A fresh app routes its first turn with the warmed router, also after a restart onto memories."""

from __future__ import annotations

import json
from pathlib import Path

from bot.app import App, build_app
from bot.core.events import Platform, TextMessage
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, RecordingMessenger, make_settings


async def _close(app: App) -> None:
    await app.assistant.stop()
    for close in app.closers:
        await close()
    if app.model is not None:
        await app.model.close()
    await app.http.aclose()
    await app.db.close()


async def _first_route(app: App, text: str) -> dict[str, object]:
    app.assistant.add_messenger(RecordingMessenger(platform=Platform.CONSOLE))
    await app.assistant.handle(TextMessage(OWNER, text))
    row = await app.db.fetchone("SELECT route_json FROM turns ORDER BY id DESC LIMIT 1")
    assert row is not None
    route: dict[str, object] = json.loads(row["route_json"])
    return route


async def test_first_turn_after_a_fresh_build_and_a_restart_does_not_fail_open(
        tmp_path: Path, model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url)
    app = await build_app(settings)
    try:
        router = app.assistant.deps.router
        assert router.ready  # type: ignore[attr-defined]  # warmed while the app was built
        model.calls([("remember", {"fact": "Marta is coeliac", "category": "fact"})])
        model.respond("Noted: Marta is coeliac.")
        route = await _first_route(app, "remember that Marta is coeliac")
        assert route["fail_open"] is False and "memory" in route["skills"]  # type: ignore[operator]
    finally:
        await _close(app)
    assert (tmp_path / "router-embeddings.npz").exists()
    written = (tmp_path / "router-embeddings.npz").stat().st_mtime_ns

    restarted = await build_app(settings)  # same data folder: memories and the embedding cache
    try:
        model.respond("Rain from 16:00.")
        route = await _first_route(restarted, "will it rain in Lisbon tomorrow?")
        assert route["fail_open"] is False
        assert route["skills"] == ["environment"]
        # The conversation's tool set came back from the database: the old tools stay first,
        # so the request prefix (and a provider's cache of it) is the same as before the restart.
        assert route["exposed"] == ["memory", "environment"]
        model.respond("Sunny.")
        route = await _first_route(restarted, "and on saturday?")
        assert route["skills"] == ["environment"]
    finally:
        await _close(restarted)
    # Nothing was embedded anew at the restart, so nothing was written: no cache write in a turn.
    assert (tmp_path / "router-embeddings.npz").stat().st_mtime_ns == written
