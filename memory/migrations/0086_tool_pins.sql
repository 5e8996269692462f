-- What the owner approved of a third-party (MCP) tool: a hash of its description and
-- schema. A tool whose hash changed needs the owner's approval again.
CREATE TABLE tool_pins (
    tool TEXT PRIMARY KEY,
    pin TEXT NOT NULL,
    approved_at TEXT NOT NULL
);
