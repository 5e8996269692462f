"""One serving process per database: a lock file next to it, held for the process's life.

Two processes on one database would both claim the same queued messages; the second one
to start fails instead, with one line naming the database and the process that holds it.
The lock goes with the process (the kernel drops it even after kill -9).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from bot.errors import ConfigError


class InstanceLock:
    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".lock")
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # held open until release()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise ConfigError(f"another Mayordomo process (pid {holder}) is already using the database "
                              f"{self.path.with_suffix('')}; stop it first (one process per database)") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None
