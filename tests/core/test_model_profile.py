"""The local-model profile: detected from the URL, longer timeout, never a second request in flight."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.config import is_local_url, load_settings
from bot.errors import ModelError, ModelFailure
from bot.llm import ModelClient, Role
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import make_settings


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8080/v1", True),
    ("http://localhost:11434/v1", True),
    ("http://ollama:11434/v1", True),  # a compose service
    ("http://192.168.1.20:8000/v1", True),
    ("http://[::1]:8080/v1", True),
    ("http://gpu-box.local:8000/v1", True),
    ("https://api.openai.com/v1", False),
    ("https://openrouter.ai/api/v1", False),
    ("http://8.8.8.8/v1", False),
])
def test_local_detection(url: str, local: bool) -> None:
    assert is_local_url(url) is local


def test_profile_defaults(tmp_path: Path) -> None:
    local = load_settings(None, llm={"base_url": "http://127.0.0.1:11434/v1"}).llm
    assert (local.local, local.effective_timeout, local.effective_retries, local.parse_text_tool_calls) == (
        True, 600.0, 0, True)
    cloud = load_settings(None, llm={"base_url": "https://api.openai.com/v1"}).llm
    assert (cloud.local, cloud.effective_timeout, cloud.effective_retries, cloud.parse_text_tool_calls) == (
        False, 60.0, 2, False)
    forced = load_settings(None, llm={"base_url": "https://api.openai.com/v1", "profile": "local",
                                      "timeout_seconds": 900, "text_tool_calls": False}).llm
    assert (forced.local, forced.effective_timeout, forced.effective_retries, forced.parse_text_tool_calls) == (
        True, 900.0, 0, False)


@pytest.mark.parametrize(("profile", "requests"), [("local", 1), ("cloud", 3)])
async def test_no_retry_after_a_timeout_on_a_local_server(profile: str, requests: int, tmp_path: Path,
                                                          db: Database, clock: ManualClock,
                                                          model: ScriptedModel) -> None:
    settings = make_settings(tmp_path, model.base_url,
                             llm={"profile": profile, "max_retries": None, "timeout_seconds": 0.2})
    for _ in range(3):
        model.hang(0.6)
    client = ModelClient(settings.llm, db, clock)
    with pytest.raises(ModelError) as caught:
        await client.complete(Role.CHAT, [{"role": "user", "content": "hi"}])
    await client.close()
    assert caught.value.failure is ModelFailure.TIMEOUT
    # Local: the server is still busy with the first request; a second would queue behind it.
    assert len(model.requests) == requests


def test_data_paths_follow_data_dir_unless_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NOTES_FOLDER", "MATRIX_STORE_PATH"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings(None, core={"data_dir": tmp_path / "d"})
    assert settings.notes.folder == tmp_path / "d" / "notes"
    assert settings.matrix.store_path == tmp_path / "d" / "matrix-store"
    monkeypatch.setenv("NOTES_FOLDER", str(tmp_path / "vault"))
    moved = load_settings(None, core={"data_dir": tmp_path / "d"})
    assert moved.notes.folder == tmp_path / "vault" and moved.matrix.store_path == tmp_path / "d" / "matrix-store"
    assert "NOTES_FOLDER" in os.environ
