-- Matrix adapter: which room event shows which approval request, and the bot's own
-- ✅/❌ reactions on it (redacted once the request is decided), so reactions and
-- replies can be matched to a request after a restart.
CREATE TABLE matrix_approval_messages (
    event_id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    room_id TEXT NOT NULL,
    reaction_event_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE INDEX matrix_approval_messages_by_request ON matrix_approval_messages(request_id);
