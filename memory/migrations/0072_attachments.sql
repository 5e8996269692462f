-- Photos and files users send: the original bytes (nothing is lost), and the text read from
-- them when they are documents. Owned by one user; tools may only reach their owner's.
CREATE TABLE attachments (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    chat_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    filename TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    data BLOB NOT NULL,
    text TEXT,
    read_error TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX attachments_by_user ON attachments(user_key, id);
