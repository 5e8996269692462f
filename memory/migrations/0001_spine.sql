-- Layer A (messages), turn records, model calls, approvals, locations, chats.
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    chat_key TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    turn_id INTEGER,
    processed INTEGER NOT NULL DEFAULT 0,
    oversized INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX messages_by_chat ON messages(chat_key, id);
CREATE INDEX messages_unprocessed ON messages(user_key, processed, id);

CREATE TABLE turns (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    chat_key TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    outcome TEXT,
    answer TEXT,
    route_json TEXT,
    exposed_tool_tokens INTEGER,
    catalog_tool_tokens INTEGER,
    verification_json TEXT
);
CREATE INDEX turns_by_user ON turns(user_key, id);

CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    risk TEXT NOT NULL,
    decision TEXT NOT NULL,
    approval_id TEXT,
    status TEXT NOT NULL,
    result TEXT,
    error TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX tool_calls_by_turn ON tool_calls(turn_id);

CREATE TABLE model_calls (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER,
    user_key TEXT,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    error TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX model_calls_by_time ON model_calls(created_at);

CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    user_key TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    turn_id INTEGER,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    decided_at TEXT,
    message_id TEXT
);
CREATE INDEX approvals_pending ON approvals(status);

CREATE TABLE locations (
    user_key TEXT PRIMARY KEY,
    latitude REAL NOT NULL,
    longitude REAL NOT NULL,
    accuracy_m REAL,
    source TEXT NOT NULL,
    label TEXT,
    at TEXT NOT NULL,
    live INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE chats (
    user_key TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    reset_after_message INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, chat_id, user_id)
);
