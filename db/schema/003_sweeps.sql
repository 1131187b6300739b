-- hilab schema, version 3: sweeps, jobs queued on a schedule.
--
-- A sweep re-reads its job file and queues it as a job every interval_ms
-- (aligned to a local time of day when at_minute is set); hilabd compares
-- each finished job of a sweep with the one before it.

CREATE TABLE sweeps (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	file		TEXT NOT NULL,		-- absolute path of the job file
	interval_ms	INTEGER NOT NULL CHECK (interval_ms > 0),
	-- minutes after local midnight the slots are aligned to, or NULL
	at_minute	INTEGER CHECK (at_minute BETWEEN 0 AND 1439),
	enabled		INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	next_at		INTEGER NOT NULL,	-- when it is due next
	last_job	INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	-- the newest job whose regression check has run
	checked_job	INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	created_at	INTEGER NOT NULL
);
CREATE INDEX sweeps_due ON sweeps (enabled, next_at);

-- The sweep that queued a job (NULL for a submitted one); a removed sweep
-- leaves its jobs and their results in place.
ALTER TABLE jobs ADD COLUMN sweep INTEGER REFERENCES sweeps (id)
    ON DELETE SET NULL;
CREATE INDEX jobs_sweep ON jobs (sweep, id);

-- The sweep an event is about: skipped and invalid runs, regressions.
-- A removed sweep leaves its events in the log.
ALTER TABLE events ADD COLUMN sweep INTEGER REFERENCES sweeps (id)
    ON DELETE SET NULL;
CREATE INDEX events_sweep ON events (sweep, id);
