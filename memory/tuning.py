"""Connection settings retrieval needs at scale (applied once by MemoryService.start)."""

from __future__ import annotations

from memory.db import Database

# A search touches the user's binary chunks (48 KB per 1024 cards) and FTS doclists; with
# SQLite's default 2 MB page cache a 100k-card memory re-reads them from the OS each time.
CACHE_KIB = 65_536
MMAP_BYTES = 256 * 1024 * 1024


async def tune_for_retrieval(db: Database) -> None:
    await db.raw(f"PRAGMA cache_size = -{CACHE_KIB}")
    await db.raw(f"PRAGMA mmap_size = {MMAP_BYTES}")
