-- Whether a chat is private (the owner and the bot) or has other members, as last seen:
-- scheduled private content (diary, briefing, reminders) only goes to private chats.
ALTER TABLE chats ADD COLUMN kind TEXT NOT NULL DEFAULT 'unknown';
