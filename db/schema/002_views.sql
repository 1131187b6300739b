-- hilab schema, version 2: views for people reading the database with
-- sqlite3.  Programs use the tables; these may change shape freely.

-- Runs with their job name, machine and kernel name.
CREATE VIEW v_runs AS
SELECT	r.id		AS id,
	r.job		AS job,
	j.name		AS job_name,
	r.machine	AS machine,
	r.kernel	AS kernel_id,
	k.name		AS kernel,
	k.release	AS kernel_release,
	r.benchmark	AS benchmark,
	r.params	AS params,
	r.round		AS round,
	r.boot		AS boot,
	r.position	AS position,
	r.iterations	AS iterations,
	r.warmups	AS warmups,
	r.state		AS state,
	r.agent_run_id	AS agent_run_id,
	r.started_at	AS started_at,
	r.finished_at	AS finished_at,
	(r.finished_at - r.started_at) / 1000.0 AS seconds,
	r.facts		AS facts,
	r.error		AS error
FROM runs r
JOIN jobs j ON j.id = r.job
JOIN kernels k ON k.id = r.kernel;

-- Every sample in long form, ready for GROUP BY or export to CSV.
CREATE VIEW v_samples AS
SELECT	r.job		AS job,
	j.name		AS job_name,
	r.machine	AS machine,
	k.name		AS kernel,
	r.benchmark	AS benchmark,
	r.params	AS params,
	r.round		AS round,
	r.boot		AS boot,
	s.run		AS run,
	s.metric	AS metric,
	m.unit		AS unit,
	m.direction	AS direction,
	s.iteration	AS iteration,
	s.repeat	AS repeat,
	s.value		AS value
FROM samples s
JOIN runs r ON r.id = s.run
JOIN jobs j ON j.id = r.job
JOIN kernels k ON k.id = r.kernel
LEFT JOIN metrics m ON m.name = s.metric;
