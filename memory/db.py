"""The one SQLite file: opened through a build that loads sqlite-vec, migrated on open.

The machine's own `sqlite3` module often cannot load extensions, so the connection is
made with `pysqlite3` (SQLite 3.5x with FTS5 and extension loading) and sqlite-vec is
loaded on every connect. All access goes through one aiosqlite connection (one thread);
`transaction()` holds a lock so a multi-statement write is never interleaved.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

from bot.errors import DatabaseError

Params = Sequence[Any] | dict[str, Any]
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def _connect_sync(path: str) -> Any:
    try:
        import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
    except ImportError as exc:  # pragma: no cover - exercised only on broken installs
        raise DatabaseError(
            "pysqlite3-binary is not installed; it is needed to load sqlite-vec "
            "(pip install pysqlite3-binary)"
        ) from exc
    import sqlite_vec

    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:
        conn.close()
        raise DatabaseError(f"could not load sqlite-vec into SQLite: {exc}") from exc
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    # A commit writes the WAL without waiting for the disk: it survives the process being
    # killed, and the file stays consistent if the machine loses power (the last commits may
    # then be lost). A commit that must outlive a power cut (what was stored before the
    # messenger is told it arrived) asks for it: `transaction(durable=True)`. Waiting for the
    # disk on every commit (~5 ms each, a dozen a turn, one connection) capped the whole
    # process at a few dozen turns a second whatever the CPU.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA secure_delete=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


class Transaction:
    """Statements inside `async with db.transaction() as tx` (lock already held)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._conn.execute(sql, params)
        return cursor.lastrowid or 0

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        await self._conn.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Any]:
        return list(await self._conn.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> Any | None:
        """The first row (see `Database.fetchone`)."""
        return _first(await self._conn.execute_fetchall(sql, params))

    async def rowcount(self, sql: str, params: Params = ()) -> int:
        cursor = await self._conn.execute(sql, params)
        return cursor.rowcount


class Database:
    """One SQLite file with sqlite-vec loaded and every migration applied."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = aiosqlite.Connection(lambda: _connect_sync(str(path)), iter_chunk_size=64)
        try:
            await conn
        except DatabaseError:
            raise
        except Exception as exc:
            raise DatabaseError(f"cannot open database {path}: {exc}") from exc
        db = cls(conn, path)
        await db.migrate()
        return db

    async def close(self) -> None:
        await self._conn.close()

    @contextlib.asynccontextmanager
    async def transaction(self, durable: bool = False) -> AsyncIterator[Transaction]:
        """All-or-nothing: COMMIT on success, ROLLBACK on any exception.

        `durable`: COMMIT returns only once the change (and every earlier one) is on disk.
        """
        async with self._lock:
            if durable:
                await self._conn.execute("PRAGMA synchronous=FULL")
            try:
                try:
                    await self._conn.execute("BEGIN IMMEDIATE")
                except asyncio.CancelledError:
                    # BEGIN may already be running in the worker thread: a transaction left open
                    # would make every later BEGIN fail. ROLLBACK is queued after it either way.
                    with contextlib.suppress(Exception):
                        await asyncio.shield(self._conn.execute("ROLLBACK"))
                    raise
                try:
                    yield Transaction(self._conn)
                except BaseException:
                    await self._conn.execute("ROLLBACK")
                    raise
                await self._conn.execute("COMMIT")
            finally:
                if durable:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(self._conn.execute("PRAGMA synchronous=NORMAL"))

    # One statement on its own is atomic without BEGIN and COMMIT (the connection is in
    # autocommit mode): one trip to the database thread instead of three. Every call of a
    # turn crosses threads, so these trips are a good part of the CPU a turn costs.
    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement on its own; returns lastrowid."""
        async with self._lock:
            cursor = await self._conn.execute(sql, params)
            return cursor.lastrowid or 0

    async def rowcount(self, sql: str, params: Params = ()) -> int:
        async with self._lock:
            cursor = await self._conn.execute(sql, params)
            return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        async with self.transaction() as tx:
            await tx.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Any]:
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> Any | None:
        """The first row, or None. For a query of one row (a key, an aggregate, LIMIT 1): it
        reads every row the query yields, in one trip to the database thread instead of two."""
        async with self._lock:
            return _first(await self._conn.execute_fetchall(sql, params))

    async def raw(self, sql: str) -> None:
        """Run a statement outside a transaction (VACUUM, wal_checkpoint, optimize)."""
        async with self._lock:
            await self._conn.execute(sql)

    async def migrate(self) -> list[str]:
        """Apply pending numbered migrations from memory/migrations, each in a transaction."""
        await self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
        )
        cursor = await self._conn.execute("SELECT version FROM schema_migrations")
        done = {row[0] for row in await cursor.fetchall()}
        applied: list[str] = []
        for version, name, sql in _migrations():
            if version in done:
                continue
            async with self.transaction() as tx:
                for statement in _split_statements(sql):
                    await tx.execute(statement)
                await tx.execute(
                    "INSERT INTO schema_migrations(version, name) VALUES (?, ?)", (version, name)
                )
            applied.append(name)
        return applied


def _first(rows: Iterable[Any]) -> Any | None:
    return next(iter(rows), None)


def _migrations() -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    seen: dict[int, str] = {}
    for entry in resources.files("memory.migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if not match:
            continue
        version = int(match.group(1))
        if version in seen:
            raise DatabaseError(f"two migrations share number {version}: {seen[version]}, {entry.name}")
        seen[version] = entry.name
        found.append((version, entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def _split_statements(sql: str) -> list[str]:
    """Split a migration on top-level semicolons (triggers keep their BEGIN…END body)."""
    statements: list[str] = []
    current: list[str] = []
    depth = 0
    for line in sql.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        current.append(line)
        upper = stripped.upper()
        if re.search(r"\bBEGIN\b", upper) and "TRANSACTION" not in upper:
            depth += 1
        if re.match(r"END\b", upper):
            depth -= 1
        if stripped.endswith(";") and depth == 0:
            statements.append("\n".join(current))
            current = []
    if current:
        statements.append("\n".join(current))
    return statements
