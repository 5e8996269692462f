-- The durable inbox and outbox, and claimable scheduled jobs. Rows are claimed with a
-- lease (claimed_by, claimed_until), so several workers could share these tables: one
-- worker per chat at a time for the inbox, one sender per chat for the outbox.
CREATE TABLE chat_inbox (
    id INTEGER PRIMARY KEY,
    chat_key TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    chat_kind TEXT NOT NULL DEFAULT 'unknown',
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    data BLOB,
    source TEXT,
    status TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    message_id INTEGER,
    claimed_by TEXT,
    claimed_until TEXT,
    received_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX chat_inbox_by_chat ON chat_inbox(chat_key, status, id);
CREATE INDEX chat_inbox_by_status ON chat_inbox(status, id);
CREATE INDEX chat_inbox_by_source ON chat_inbox(source);

CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    chat_key TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    chat_kind TEXT NOT NULL DEFAULT 'unknown',
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    suggestions TEXT NOT NULL DEFAULT '[]',
    receipts TEXT NOT NULL DEFAULT '[]',
    ask_location INTEGER NOT NULL DEFAULT 0,
    job_id TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error TEXT,
    claimed_by TEXT,
    claimed_until TEXT,
    created_at TEXT NOT NULL,
    delivered_at TEXT,
    message_id TEXT
);
CREATE INDEX outbox_by_chat ON outbox(chat_key, status, id);
CREATE INDEX outbox_due ON outbox(status, next_attempt_at);

ALTER TABLE scheduled_once ADD COLUMN claimed_by TEXT;
ALTER TABLE scheduled_once ADD COLUMN claimed_until TEXT;

CREATE INDEX turns_unfinished ON turns(finished_at) WHERE finished_at IS NULL;
