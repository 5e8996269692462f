-- Whether a turn saw third-party content itself (a read, a file or photo sent in, a forward):
-- the next turn of the chat inherits it, across restarts too. It was kept inside route_json,
-- which the route record rewrites; a column of its own cannot be lost that way.
ALTER TABLE turns ADD COLUMN untrusted_seen INTEGER NOT NULL DEFAULT 0;
UPDATE turns SET untrusted_seen = 1 WHERE json_extract(route_json, '$.untrusted_seen');
