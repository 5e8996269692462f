"""The real `mayordomo run` process against the fake Bot API and the scripted model.

The fake servers run in the test's event loop; the bot is a child process started with
`sys.executable -m bot.cli`, so it can be killed (-9), stopped (SIGTERM) and started again
on the same data folder, like a container restarting.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.prompt import SOFTWARE_NOTE
from tests.scripted_model import Scripted, ScriptedModel
from tests.telegram.fake_bot_api import FakeBotApi

OWNER_ID = 1001


def hashed_vectors(texts: list[str]) -> list[list[float]]:
    """A deterministic stand-in embedder for the scripted endpoint (16 dimensions)."""
    vectors = []
    for text in texts:
        digest = hashlib.sha256(text.encode()).digest()
        vectors.append([(b - 128) / 128 for b in digest[:16]])
    return vectors


def last_user_text(body: dict[str, Any]) -> str:
    """The user's words in the newest user message (the turn's context comes first, then a
    blank line, then the words; the test messages are one paragraph)."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if not isinstance(content, str):
                return json.dumps(content)
            return content.rpartition("\n\n")[2] if content.startswith(SOFTWARE_NOTE) else content
    return ""


@dataclass
class EchoModel:
    """Answers every chat turn with `echo: <the user's words>` after `delay` seconds."""

    model: ScriptedModel
    delay: float = 0.0
    turns: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model.responder = self._respond
        self.model.embedder = hashed_vectors

    def _respond(self, body: dict[str, Any]) -> Scripted:
        said = last_user_text(body)
        if not body.get("tools"):  # a background request (memory), not a turn
            return Scripted(content="{}")
        self.turns.append(said)
        return Scripted(tool_calls=[("respond", {"text": f"echo: {said}"})], delay=self.delay)


def write_env(folder: Path, api: FakeBotApi, model: ScriptedModel, **extra: Any) -> Path:
    values: dict[str, Any] = {
        "DATA_DIR": folder / "data",
        "TIMEZONE": "Europe/Madrid",
        "LOG_LEVEL": "INFO",
        "LLM_BASE_URL": model.base_url,
        "LLM_API_KEY": "test-key",
        "LLM_CHAT_MODEL": "scripted-chat",
        "LLM_MAX_RETRIES": 0,
        "LLM_TIMEOUT_SECONDS": 30,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_ALLOWED_USERS": OWNER_ID,
        "TELEGRAM_BASE_URL": api.base_url,
        "TELEGRAM_BASE_FILE_URL": api.base_file_url,
        "TELEGRAM_POLL_TIMEOUT_SECONDS": 1,
        "TELEGRAM_RETRY_BACKOFF_SECONDS": 0.2,
        "ROUTER_MODE": "all",
        "MEMORY_EMBEDDER": "openai",
        "MEMORY_EMBEDDING_BASE_URL": model.base_url,
        "BRIEFING_ENABLED": "false",
        "NOTES_FOLDER": folder / "notes",
        **extra,
    }
    env_file = folder / "test.env"
    env_file.write_text("".join(f"{key}={value}\n" for key, value in values.items()), encoding="utf-8")
    return env_file


@dataclass
class BotProcess:
    env_file: Path
    log_file: Path
    process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        for key in list(env):  # the developer's settings must not leak in
            if key.startswith(("TELEGRAM_", "MATRIX_", "LLM_")):
                del env[key]
        fd = os.open(self.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "--env-file", str(self.env_file), "run",
                stdin=asyncio.subprocess.DEVNULL, stdout=fd, stderr=fd, env=env,
            )
        finally:
            os.close(fd)  # the child has its own copy

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)

    async def wait(self, within: float = 60.0) -> int:
        assert self.process is not None
        return await asyncio.wait_for(self.process.wait(), within)

    async def ensure_stopped(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8", errors="replace") if self.log_file.exists() else ""


async def wait_until_polling(api: FakeBotApi, after: int = 0, within: float = 90.0) -> None:
    """Until the process asks for updates (it is up) more than `after` times in all."""
    await api.wait_for("getUpdates", count=after + 1, within=within)


def read_db(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Read the bot's SQLite file from the test (WAL lets a reader in while it writes)."""
    import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]

    conn = sqlite3.connect(str(path), timeout=30)
    try:
        conn.row_factory = sqlite3.Row
        return list(conn.execute(sql, params).fetchall())
    finally:
        conn.close()
