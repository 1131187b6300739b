-- hilab schema, version 9: cron schedules, change points and their
-- confirmation, mail.
--
-- A sweep is queued either every interval_ms (maybe aligned to at_minute)
-- or at the slots of a cron expression (five crontab(5) fields, local
-- time); exactly one of interval_ms and cron is set.  interval_ms loses
-- its NOT NULL: the column is rebuilt in place (renamed, copied, dropped),
-- so that no row of jobs or events loses its sweep.
ALTER TABLE sweeps RENAME COLUMN interval_ms TO interval_old;
ALTER TABLE sweeps ADD COLUMN interval_ms INTEGER
    CHECK (interval_ms IS NULL OR interval_ms > 0);
UPDATE sweeps SET interval_ms = interval_old;
ALTER TABLE sweeps DROP COLUMN interval_old;
ALTER TABLE sweeps ADD COLUMN cron TEXT CHECK (cron IS NULL OR cron <> '');

-- Per sweep: the rounds of each side of a confirmation job, and where a
-- confirmed regression or a failed job is reported: an mbox file to append
-- to and a command (a JSON array of its argv words, run without a shell)
-- that reads the message on its standard input; NULL: not that way.
ALTER TABLE sweeps ADD COLUMN confirm_rounds INTEGER NOT NULL DEFAULT 3
    CHECK (confirm_rounds >= 2);
ALTER TABLE sweeps ADD COLUMN mbox TEXT CHECK (mbox IS NULL OR mbox <> '');
ALTER TABLE sweeps ADD COLUMN mail_command TEXT
    CHECK (mail_command IS NULL OR json_array_length(mail_command) > 0);

-- Change points the sweeper found in a series of a sweep's done jobs:
-- one row per (machine, benchmark, params, metric) and change.  job is the
-- first job after the change, before_job the last one before it (the last
-- good one, for a regression); before and after are the medians of the
-- points on each side, effect_pct the raw change between them, p the
-- detector's, verdict what it means for the metric's direction.
-- found_job is the job whose check found it.
--
-- A suspected change is re-measured as an interleaved A/B job (the last
-- good point's kernel and benchmark against the suspect's, alternating
-- rounds on the series' machine): state goes suspected -> confirming
-- (confirm_job set) -> confirmed or rejected (confirm_p and
-- confirm_effect_pct set from the A/B job's samples), or failed when the
-- A/B job did not end done.
CREATE TABLE sweep_changes (
	id		INTEGER PRIMARY KEY,
	sweep		INTEGER REFERENCES sweeps (id) ON DELETE SET NULL,
	machine		TEXT NOT NULL,
	benchmark	TEXT NOT NULL,
	params		TEXT NOT NULL,
	metric		TEXT NOT NULL,
	job		INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	before_job	INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	found_job	INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	before		REAL NOT NULL,
	after		REAL NOT NULL,
	effect_pct	REAL NOT NULL,
	p		REAL NOT NULL CHECK (p BETWEEN 0 AND 1),
	verdict		TEXT NOT NULL
			CHECK (verdict IN ('regression', 'improvement')),
	state		TEXT NOT NULL DEFAULT 'suspected'
			CHECK (state IN ('suspected', 'confirming',
			    'confirmed', 'rejected', 'failed')),
	created_at	INTEGER NOT NULL,
	confirm_job	INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	confirm_p	REAL CHECK (confirm_p IS NULL OR
			    confirm_p BETWEEN 0 AND 1),
	confirm_effect_pct REAL,
	CHECK ((state = 'suspected') = (confirm_job IS NULL) OR
	    state = 'failed')
);
CREATE INDEX sweep_changes_series ON sweep_changes
    (sweep, machine, benchmark, params, metric, job);
