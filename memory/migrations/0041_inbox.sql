-- Notifications pushed in by other systems (monitors, CI, container updaters), per source.
CREATE TABLE inbox_notifications (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    message TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('problem', 'recovered', 'info')),
    subject TEXT NOT NULL,
    priority INTEGER,
    tags TEXT NOT NULL DEFAULT '[]',
    url TEXT,
    received_at TEXT NOT NULL
);
CREATE INDEX inbox_by_time ON inbox_notifications(received_at);
CREATE INDEX inbox_by_source ON inbox_notifications(source, received_at);
