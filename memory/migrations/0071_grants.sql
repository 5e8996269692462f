-- Standing permissions ("always allow"): the owner answered an approval with "always for
-- this", so later calls of the same tool within the same scope (a note folder, a set of
-- recipients, a calendar) run without asking. Revoked grants are kept, marked, for the record.
CREATE TABLE grants (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    tool TEXT NOT NULL,
    scope_kind TEXT NOT NULL,
    scope_values TEXT NOT NULL,
    description TEXT NOT NULL,
    approval_id TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX grants_by_user_tool ON grants(user_key, tool) WHERE revoked_at IS NULL;
-- Which call each grant let through, so every action stays traceable to a decision.
CREATE TABLE grant_uses (
    id INTEGER PRIMARY KEY,
    grant_id INTEGER NOT NULL REFERENCES grants(id),
    turn_id INTEGER,
    call_id TEXT NOT NULL,
    used_at TEXT NOT NULL
);
-- What an "always" answer on this request would grant (NULL: this request cannot be granted).
ALTER TABLE approvals ADD COLUMN grant_scope TEXT;
