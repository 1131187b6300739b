-- hilab schema, version 1: queue, machines, kernels, runs, results, samples.
--
-- Conventions (see db/SCHEMA.md):
--   * every time is INTEGER unix milliseconds (UTC);
--   * JSON columns hold text that json_extract() reads;
--   * states are lowercase words checked by CHECK constraints, not STRICT
--     tables, so that a copied database still opens in an older sqlite3.

PRAGMA application_id = 1751737442;	-- 'hilb'

-- Lab machines as last read from the inventory; leases are held by one
-- controller thread at a time and expire by themselves.
CREATE TABLE machines (
	name		TEXT PRIMARY KEY NOT NULL,
	kind		TEXT NOT NULL,		-- ssh, libvirt
	arch		TEXT NOT NULL,		-- x86_64, aarch64
	facts		TEXT,			-- JSON of the last connect
	facts_at	INTEGER,
	health		TEXT NOT NULL DEFAULT 'unknown'
			CHECK (health IN ('good', 'unknown', 'bad',
			    'maintenance')),
	lease_owner	TEXT,
	lease_expires	INTEGER,
	updated_at	INTEGER NOT NULL,
	CHECK ((lease_owner IS NULL) = (lease_expires IS NULL))
);

-- Kernel variants: one row per (name, spec); "base", "patch 1+2"...
CREATE TABLE kernels (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL,
	release		TEXT,			-- uname -r once known
	version		TEXT,			-- uname -v once known
	cmdline		TEXT,
	spec		TEXT NOT NULL,		-- JSON: tree, base, patches
	spec_hash	TEXT NOT NULL,		-- hash of spec text
	created_at	INTEGER NOT NULL,
	UNIQUE (name, spec_hash)
);

-- Submitted jobs: the queue.  The CLI inserts rows and sets
-- cancel_requested; hilabd moves the state.
CREATE TABLE jobs (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL,
	file		TEXT,			-- the job file submitted
	spec		TEXT NOT NULL,		-- JSON: the normalized job
	state		TEXT NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done',
			    'failed', 'cancelled')),
	cancel_requested INTEGER NOT NULL DEFAULT 0
			CHECK (cancel_requested IN (0, 1)),
	submitted_at	INTEGER NOT NULL,
	started_at	INTEGER,
	finished_at	INTEGER,
	error		TEXT
);
CREATE INDEX jobs_state ON jobs (state, id);

-- One benchmark at one parameter set on one machine with one kernel in
-- one round and boot: the unit the planner orders and a worker executes.
CREATE TABLE runs (
	id		INTEGER PRIMARY KEY,
	job		INTEGER NOT NULL REFERENCES jobs (id)
			ON DELETE CASCADE,
	machine		TEXT NOT NULL REFERENCES machines (name),
	kernel		INTEGER NOT NULL REFERENCES kernels (id),
	benchmark	TEXT NOT NULL,
	-- canonical "groups=4"
	params		TEXT NOT NULL DEFAULT '',
	round		INTEGER NOT NULL DEFAULT 0,
	boot		INTEGER NOT NULL DEFAULT 0,
	-- order in the round
	position	INTEGER NOT NULL DEFAULT 0,
	iterations	INTEGER NOT NULL CHECK (iterations >= 0),
	warmups		INTEGER NOT NULL DEFAULT 0 CHECK (warmups >= 0),
	state		TEXT NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done',
			    'failed', 'cancelled')),
	agent_run_id	TEXT UNIQUE,		-- the agent's spool name
	started_at	INTEGER,
	finished_at	INTEGER,
	facts		TEXT,			-- JSON fingerprint at run
	error		TEXT,
	console		TEXT			-- console excerpt
);
CREATE INDEX runs_job ON runs (job, round, position);
CREATE INDEX runs_machine_state ON runs (machine, state);
CREATE INDEX runs_state ON runs (state);

-- One execution of the benchmark command (warmup or measured).
CREATE TABLE run_results (
	run		INTEGER NOT NULL REFERENCES runs (id)
			ON DELETE CASCADE,
	seq		INTEGER NOT NULL,	-- 0, 1, ... per run
	warmup		INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),
	exit_status	INTEGER,
	timed_out	INTEGER NOT NULL DEFAULT 0
			CHECK (timed_out IN (0, 1)),
	wall_ns		INTEGER,
	utime_us	INTEGER,
	stime_us	INTEGER,
	maxrss_kb	INTEGER,
	output		BLOB,
	truncated	INTEGER NOT NULL DEFAULT 0
			CHECK (truncated IN (0, 1)),
	PRIMARY KEY (run, seq)
) WITHOUT ROWID;

-- Measured values.  A WITHOUT ROWID table keyed (run, metric, iteration,
-- repeat) (repeat counts the values one output gives of one metric: a
-- probe that times 20 operations in one iteration stores 20 samples)
-- is itself the covering b-tree for per-(run, metric) summaries: the rows
-- of one (run, metric) sit together with their value, so a summary reads
-- one contiguous range, and ingest maintains a single b-tree instead of a
-- rowid table plus an index (a second live index halves the insert rate).
-- The key also makes a re-ingest of the same spool idempotent.  metric
-- has no foreign key: a sample is never refused for a catalog gap.
CREATE TABLE samples (
	run		INTEGER NOT NULL REFERENCES runs (id)
			ON DELETE CASCADE,
	metric		TEXT NOT NULL,
	iteration	INTEGER NOT NULL,
	repeat		INTEGER NOT NULL DEFAULT 0,	-- nth value of the metric
							-- in one iteration's output
	value		REAL NOT NULL,
	PRIMARY KEY (run, metric, iteration, repeat)
) WITHOUT ROWID;

-- What a metric means: its unit, which way is better, how to summarize.
CREATE TABLE metrics (
	name		TEXT PRIMARY KEY NOT NULL,
	unit		TEXT NOT NULL DEFAULT '',
	direction	TEXT NOT NULL DEFAULT 'lower'
			CHECK (direction IN ('higher', 'lower')),
	statistic	TEXT NOT NULL DEFAULT 'amean'
			CHECK (statistic IN ('amean', 'hmean', 'gmean',
			    'median'))
);

-- The controller's log of what happened, per job, run and machine.
CREATE TABLE events (
	id		INTEGER PRIMARY KEY,
	time		INTEGER NOT NULL,
	job		INTEGER REFERENCES jobs (id) ON DELETE CASCADE,
	run		INTEGER REFERENCES runs (id) ON DELETE CASCADE,
	machine		TEXT,
	level		TEXT NOT NULL
			CHECK (level IN ('debug', 'info', 'warn', 'error')),
	message		TEXT NOT NULL
);
CREATE INDEX events_job ON events (job, id);
CREATE INDEX events_run ON events (run);
CREATE INDEX events_machine ON events (machine, id);
