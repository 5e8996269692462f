-- Turns parked on an approval: what finishes the turn once the user decides, so the
-- chat is free meanwhile. One row per waiting turn; it goes when the turn answers.
CREATE TABLE parked_turns (
    turn_id INTEGER PRIMARY KEY,
    chat_key TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    chat_kind TEXT NOT NULL DEFAULT 'unknown',
    inbox_id INTEGER NOT NULL,
    approval_id TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL,
    parked_at TEXT NOT NULL
);
CREATE INDEX parked_turns_by_inbox ON parked_turns(inbox_id);
