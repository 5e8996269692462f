-- The process that works this database now. The next one to start reads it to know whose
-- claims on the inbox and outbox it inherits (one process per database: a lock file guards it).
CREATE TABLE process_owner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    worker TEXT NOT NULL,
    started_at TEXT NOT NULL,
    seen_at TEXT NOT NULL
);
