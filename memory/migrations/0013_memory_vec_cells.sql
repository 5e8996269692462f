-- Coarse cells of a user's card vectors (k-means over that user's own vectors; see memory/cells.py).
-- A search scans only the cells nearest the query. Rows exist only for users with many cards.
-- `centroid` is the sum of the members' unit vectors: a forgotten card's vector is taken out of it.
CREATE TABLE memory_vec_cells (
    user_key TEXT NOT NULL,
    cell INTEGER NOT NULL,
    centroid BLOB NOT NULL,
    members INTEGER NOT NULL,
    trained_on INTEGER NOT NULL,  -- the user's card count when the cells were trained
    PRIMARY KEY (user_key, cell)
);
