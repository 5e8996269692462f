-- Telegram: every message the adapter got accepted by the Bot API (ids only, no text:
-- the words live in layer A, where /forget can reach them).
CREATE TABLE telegram_sent (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    part INTEGER NOT NULL DEFAULT 1,
    parts INTEGER NOT NULL DEFAULT 1,
    attempts INTEGER NOT NULL DEFAULT 1,
    sent_at TEXT NOT NULL
);
CREATE INDEX telegram_sent_by_chat ON telegram_sent(chat_id, message_id);
