-- News feeds (RSS/Atom): per-feed HTTP validators, and entries deduplicated by id and link.
CREATE TABLE news_feeds (
    url TEXT PRIMARY KEY,
    title TEXT,
    etag TEXT,
    last_modified TEXT,
    final_url TEXT,
    checked_at TEXT,
    outcome TEXT,
    error TEXT
);

CREATE TABLE news_entries (
    id INTEGER PRIMARY KEY,
    feed_url TEXT NOT NULL,
    entry_key TEXT NOT NULL,
    link TEXT,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    published_at TEXT,
    fetched_at TEXT NOT NULL,
    sort_at TEXT NOT NULL,
    read_at TEXT,
    digested_at TEXT,
    UNIQUE (feed_url, entry_key)
);
CREATE UNIQUE INDEX news_entries_by_link ON news_entries(link) WHERE link IS NOT NULL;
CREATE INDEX news_entries_unread ON news_entries(read_at, sort_at);

CREATE VIRTUAL TABLE news_entries_fts USING fts5(title, text, content = 'news_entries', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER news_entries_fts_insert AFTER INSERT ON news_entries BEGIN
    INSERT INTO news_entries_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;

CREATE TRIGGER news_entries_fts_delete AFTER DELETE ON news_entries BEGIN
    INSERT INTO news_entries_fts(news_entries_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
END;
