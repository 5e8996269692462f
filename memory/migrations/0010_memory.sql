-- Memory layers B (summary cards), C (profile), D (timeline), E (diary) and the embedder record.
CREATE TABLE memory_cards (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    day TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    title TEXT NOT NULL,
    topics TEXT NOT NULL DEFAULT '[]',
    facts TEXT NOT NULL DEFAULT '[]',
    decisions TEXT NOT NULL DEFAULT '[]',
    synthesis TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX memory_cards_by_user ON memory_cards(user_key, day);

CREATE TABLE memory_card_sources (
    card_id INTEGER NOT NULL REFERENCES memory_cards(id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (card_id, message_id)
);
CREATE INDEX memory_card_sources_by_message ON memory_card_sources(message_id);

-- owner: a one-token hash of the user key, so the MATCH itself is per user (fast, exact).
-- Fields are weighted separately at query time (bm25 weights: title, synthesis, details).
CREATE VIRTUAL TABLE memory_cards_fts USING fts5(title, synthesis, details, owner, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO memory_cards_fts(memory_cards_fts, rank) VALUES ('secure-delete', 1);

-- Which embedder wrote the vectors in memory_cards_vec (created in code: its width depends on it),
-- and the centre subtracted before binary quantisation (the mean of reference passages).
CREATE TABLE memory_embedder (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    name TEXT NOT NULL,
    dim INTEGER NOT NULL,
    center BLOB NOT NULL
);

CREATE TABLE memory_profile (
    user_key TEXT NOT NULL,
    section TEXT NOT NULL,
    lines TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_key, section)
);

CREATE TABLE memory_timeline (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    day TEXT NOT NULL,
    category TEXT NOT NULL,
    fact TEXT NOT NULL,
    fact_key TEXT NOT NULL,
    slot TEXT,
    source_message_id INTEGER,
    ended_on TEXT,
    replaced_by INTEGER,
    created_at TEXT NOT NULL,
    UNIQUE (user_key, day, fact_key)
);
CREATE INDEX memory_timeline_by_user ON memory_timeline(user_key, day);
CREATE INDEX memory_timeline_open_slots ON memory_timeline(user_key, slot, ended_on);

CREATE VIRTUAL TABLE memory_timeline_fts USING fts5(fact, owner, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO memory_timeline_fts(memory_timeline_fts, rank) VALUES ('secure-delete', 1);

CREATE TABLE memory_diary (
    user_key TEXT NOT NULL,
    day TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('written', 'nothing')),
    narrative TEXT NOT NULL DEFAULT '',
    achievements TEXT NOT NULL DEFAULT '[]',
    difficulties TEXT NOT NULL DEFAULT '[]',
    tags TEXT NOT NULL DEFAULT '[]',
    mood TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_key, day)
);

CREATE VIRTUAL TABLE memory_diary_fts USING fts5(body, owner, day UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO memory_diary_fts(memory_diary_fts, rank) VALUES ('secure-delete', 1);

-- Consolidation passes (outcome only: the content lives in the layers).
CREATE TABLE memory_passes (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    at TEXT NOT NULL,
    outcome TEXT NOT NULL,
    messages INTEGER NOT NULL DEFAULT 0,
    detail TEXT
);
