-- A conversation's exposed skills, in the order they joined: the tool prefix stays the same
-- across restarts, so a provider's cached prefix survives them too.
CREATE TABLE conversation_tool_sets (
    chat_key TEXT PRIMARY KEY,
    skills TEXT NOT NULL,          -- JSON list of skill ids, oldest first
    last_seen TEXT NOT NULL        -- ISO time of the last turn that used the set
);
