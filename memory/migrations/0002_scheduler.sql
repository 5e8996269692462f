-- Scheduled jobs: the last time each recurring job fired, and one-shot jobs (reminders).
CREATE TABLE job_runs (
    job_id TEXT PRIMARY KEY,
    last_fire TEXT NOT NULL
);

CREATE TABLE scheduled_once (
    job_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    user_key TEXT NOT NULL,
    run_at TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    fired_at TEXT
);
CREATE INDEX scheduled_once_pending ON scheduled_once(status, run_at);
