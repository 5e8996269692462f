-- Progress of re-embedding every card after the embedder changed: one row while it is under way.
-- Cards are done in id order, each batch's vectors and this row in one transaction, so an
-- interrupted run resumes at next_card_id.
CREATE TABLE memory_reembed (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    embedder TEXT NOT NULL,
    next_card_id INTEGER NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0
);
