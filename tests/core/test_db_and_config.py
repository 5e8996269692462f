from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import load_settings
from bot.errors import ConfigError
from memory.db import Database


async def test_sqlite_vec_is_loaded_and_migrations_recorded(db: Database) -> None:
    row = await db.fetchone("SELECT vec_version() AS v")
    assert row["v"].startswith("v")
    versions = [r["version"] for r in await db.fetchall("SELECT version FROM schema_migrations")]
    assert 1 in versions and versions == sorted(versions)
    fts = await db.fetchone("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS f")
    assert fts["f"] == 1


async def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    first = await Database.open(tmp_path / "a.sqlite3")
    await first.close()
    second = await Database.open(tmp_path / "a.sqlite3")
    assert await second.migrate() == []
    await second.close()


async def test_transaction_is_all_or_nothing(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO job_runs(job_id, last_fire) VALUES ('a', 'x')")
            raise RuntimeError("crash mid-write")
    assert await db.fetchone("SELECT * FROM job_runs WHERE job_id = 'a'") is None


async def test_only_a_durable_transaction_waits_for_the_disk(db: Database) -> None:
    # NORMAL (1): a commit survives a killed process; FULL (2): it also survives a power cut.
    assert (await db.fetchone("PRAGMA synchronous"))[0] == 1
    async with db.transaction(durable=True) as tx:
        assert (await tx.fetchone("PRAGMA synchronous"))[0] == 2
        await tx.execute("CREATE TABLE kept(x)")
    assert (await db.fetchone("PRAGMA synchronous"))[0] == 1
    with pytest.raises(RuntimeError):
        async with db.transaction(durable=True) as tx:
            raise RuntimeError("boom")
    assert (await db.fetchone("PRAGMA synchronous"))[0] == 1


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("TIMEZONE", "Mars/Olympus", "TIMEZONE: expected an IANA time zone"),
        ("TELEGRAM_ALLOWED_USERS", "me,you", "TELEGRAM_ALLOWED_USERS: expected comma-separated numeric"),
        ("MAX_TOOL_ROUNDS", "lots", "MAX_TOOL_ROUNDS"),
        ("LLM_TIMEOUT_SECONDS", "-3", "LLM_TIMEOUT_SECONDS: expected a number of seconds greater than 0"),
        ("POLICY_OVERRIDES", '{"x": "sometimes"}', "POLICY_OVERRIDES"),
    ],
)
def test_bad_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str,
                                        expected: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as excinfo:
        load_settings(None)
    message = str(excinfo.value)
    assert message.startswith(expected)
    assert "\n" not in message


def test_bad_config_stops_the_cli_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    env = tmp_path / "bad.env"
    env.write_text("TIMEZONE=Nowhere/Land\n")
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "--env-file", str(env), "check-config"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "TIMEZONE" in lines[0]


@pytest.mark.parametrize(
    ("env", "secret"),
    [
        ({"INBOX_ENABLED": "true", "INBOX_TOKEN": "tok-short-9"}, "tok-short-9"),
        ({"TELEGRAM_WEBHOOK_SECRET": "hunter2 with spaces!"}, "hunter2 with spaces!"),
        ({"MCP_SERVERS": '[{"name": "kb", "transport": "http", "url": "http://127.0.0.1:1/mcp",'
                         ' "headers": {"Authorization": 4242424242}}]'}, "4242424242"),
        ({"MCP_SERVERS": '[{"name": "kb", "transport": "http", "url": "http://127.0.0.1:1/mcp",'
                         ' "headers": {"Authorization": "Bearer sk-hdr-77"}, "oops": 1}]'}, "sk-hdr-77"),
        ({"MCP_SERVERS": '[{"name": "kb", "command": "x", "env": {"API_KEY": ["sk-env-55"]}}]'}, "sk-env-55"),
    ],
)
def test_config_error_leaks_no_secret_to_the_logs(tmp_path: Path, env: dict[str, str], secret: str) -> None:
    dotenv = tmp_path / "bad.env"
    dotenv.write_text("".join(f"{key}={value}\n" for key, value in env.items()))
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "--env-file", str(dotenv), "check-config"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert secret not in result.stderr and secret not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and list(env)[-1] in lines[0]


def test_policy_overrides_that_are_not_json_give_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_OVERRIDES", "{notes_write: allow")
    with pytest.raises(ConfigError) as excinfo:
        load_settings(None)
    assert str(excinfo.value).startswith("POLICY_OVERRIDES: expected a JSON object")


def test_secrets_do_not_print(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-very-secret-value")
    settings = load_settings(None)
    assert "sk-very-secret-value" not in repr(settings)
    assert "sk-very-secret-value" not in str(settings.llm)
    assert settings.llm.api_key.get_secret_value() == "sk-very-secret-value"


def test_env_example_loads_as_is_and_documents_every_section() -> None:
    from bot.config import SECTIONS

    example = Path(__file__).resolve().parents[2] / ".env.example"
    settings = load_settings(example)
    assert settings.core.timezone == "Europe/Madrid"
    text = example.read_text()
    missing = [
        f"{section.model_config.get('env_prefix') or ''}{field}".upper()
        for section in SECTIONS.values()
        for field in section.model_fields
        if f"{section.model_config.get('env_prefix') or ''}{field}".upper() not in text
    ]
    assert missing == [], f"settings missing from .env.example: {missing}"


async def test_turn_taint_kept_in_route_json_moves_to_its_column(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "old.sqlite3")
    # The database as 0093 left it: taint inside route_json, no column yet.
    await db.execute("ALTER TABLE turns DROP COLUMN untrusted_seen")
    await db.execute("DELETE FROM schema_migrations WHERE version = 94")
    for route in ('{"skills": [], "untrusted_seen": true}', '{"skills": []}', None):
        await db.execute("INSERT INTO turns(user_key, chat_key, started_at, route_json) VALUES (?,?,?,?)",
                         ("u", "c", "2026-01-01T00:00:00+00:00", route))

    assert await db.migrate() == ["0094_turn_taint.sql"]
    rows = await db.fetchall("SELECT untrusted_seen FROM turns ORDER BY id")
    assert [r["untrusted_seen"] for r in rows] == [1, 0, 0]
    await db.close()
