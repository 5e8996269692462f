-- The proper names each card mentions and the day it is about (a relative date in it, anchored to
-- when it was said, else the card's day): recall follows a name from the memories it found to
-- the others that mention it within a time window. Deleted with the card (forget included).
CREATE TABLE memory_card_names (
    card_id INTEGER NOT NULL REFERENCES memory_cards(id) ON DELETE CASCADE,
    user_key TEXT NOT NULL,
    name TEXT NOT NULL,
    day TEXT NOT NULL,
    PRIMARY KEY (card_id, name)
);
CREATE INDEX memory_card_names_by_name ON memory_card_names(user_key, name, day);
