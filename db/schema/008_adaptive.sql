-- hilab schema, version 8: adaptive iterations.
--
-- One row per (job, machine, kernel, benchmark, params) of a benchmark
-- whose iterations are adaptive, written by the worker each time a round
-- of that group ends: the measured iterations its runs hold so far, the
-- precision they reach (the 95% CI half-width of the metric's statistic
-- over the statistic; NULL while there is no interval), whether that is
-- within the target, and whether the group stopped (every kernel within
-- the target, or max reached without it).
CREATE TABLE adaptive (
	job		INTEGER NOT NULL REFERENCES jobs (id)
			ON DELETE CASCADE,
	machine		TEXT NOT NULL,
	kernel		INTEGER NOT NULL REFERENCES kernels (id),
	benchmark	TEXT NOT NULL,
	params		TEXT NOT NULL,
	metric		TEXT NOT NULL,
	statistic	TEXT NOT NULL
			CHECK (statistic IN ('amean', 'hmean', 'gmean',
			    'median')),
	iterations	INTEGER NOT NULL CHECK (iterations >= 0),
	precision	REAL,
	target		REAL NOT NULL CHECK (target > 0),
	min		INTEGER NOT NULL,
	max		INTEGER NOT NULL,
	reached		INTEGER NOT NULL CHECK (reached IN (0, 1)),
	done		INTEGER NOT NULL CHECK (done IN (0, 1)),
	updated_at	INTEGER NOT NULL,
	PRIMARY KEY (job, machine, kernel, benchmark, params)
);
