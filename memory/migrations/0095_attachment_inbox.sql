-- The inbox item a photo or file came in with: a turn re-run after a crash finds the attachment
-- it stored the first time instead of storing the same bytes again under a new number.
ALTER TABLE attachments ADD COLUMN inbox_id INTEGER;
CREATE UNIQUE INDEX attachments_by_inbox ON attachments(inbox_id) WHERE inbox_id IS NOT NULL;
