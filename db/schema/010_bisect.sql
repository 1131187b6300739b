-- hilab schema, version 10: bisections.
--
-- A bisection searches commits (a JSON array of full commit ids of tree,
-- the good end first and the bad end last; subjects is as long) for the
-- first bad one, measuring benchmark's metric with params on machine.
-- hilabd queues one step at a time: a job made from spec (the template
-- job, JSON) for one commit between one run of each end, or for the ends
-- alone (commit_index 0), recorded in bisect_steps.  budget is the
-- most samples the bisection may take, confidence the confidence its
-- answer needs.  state starts 'running' and moves once to 'found',
-- 'unsure', 'no change', 'failed' or 'cancelled', when result (JSON) and
-- why (a sentence, or NULL) are set and ended_at is the time.  sweep and
-- change are the sweep and change point it was started for, if any.
CREATE TABLE bisects (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL,
	spec		TEXT NOT NULL,		-- JSON: the template job
	machine		TEXT NOT NULL,
	benchmark	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	params		TEXT NOT NULL DEFAULT '',	-- canonical "groups=4"
	tree		TEXT NOT NULL,
	commits		TEXT NOT NULL		-- JSON array, good end first
			CHECK (json_array_length(commits) >= 2),
	subjects	TEXT NOT NULL		-- JSON array, as long
			CHECK (json_array_length(subjects) =
			    json_array_length(commits)),
	budget		INTEGER NOT NULL CHECK (budget > 0),	-- samples
	confidence	REAL NOT NULL
			CHECK (confidence > 0.5 AND confidence < 1),
	state		TEXT NOT NULL DEFAULT 'running'
			CHECK (state IN ('running', 'found', 'unsure',
			    'no change', 'failed', 'cancelled')),
	result		TEXT,			-- JSON, NULL while running
	why		TEXT,			-- a sentence, or NULL
	sweep		INTEGER REFERENCES sweeps (id) ON DELETE SET NULL,
	change		INTEGER REFERENCES sweep_changes (id)
			ON DELETE SET NULL,
	created_at	INTEGER NOT NULL,
	ended_at	INTEGER,		-- NULL while running
	CHECK ((state = 'running') = (ended_at IS NULL))
);
CREATE INDEX bisects_state ON bisects (state, id);

-- The steps of a bisection: job measures commits[commit_index] between
-- the ends (commit_index 0: the ends alone).  A removed
-- bisection takes its steps along; their jobs stay.
CREATE TABLE bisect_steps (
	bisect		INTEGER NOT NULL REFERENCES bisects (id)
			ON DELETE CASCADE,
	job		INTEGER NOT NULL REFERENCES jobs (id),
	commit_index	INTEGER NOT NULL CHECK (commit_index >= 0),
	PRIMARY KEY (bisect, job)
);

-- The bisection an event is about: steps queued and judged, the end.  A
-- removed bisection leaves its events in the log.
ALTER TABLE events ADD COLUMN bisect INTEGER REFERENCES bisects (id)
    ON DELETE SET NULL;
CREATE INDEX events_bisect ON events (bisect, id);

-- A sweep that bisects its confirmed regressions: the budget (samples) of
-- each bisection it starts; 0 for none.
ALTER TABLE sweeps ADD COLUMN bisect_budget INTEGER NOT NULL DEFAULT 0
    CHECK (bisect_budget >= 0);
