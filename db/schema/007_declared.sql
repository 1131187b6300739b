-- hilab schema, version 7: a metric's meaning is its job's.
--
-- v_declared lists every metric each job declares for each of its
-- benchmarks (jobs.spec), and v_samples takes a sample's unit, direction
-- and statistic from there instead of the metrics table, which only caches
-- the last job's declarations.  A sample's declaration is the one of its
-- name, else the first name with '*' that matches it as a pattern (as
-- hilab's own tables read it); a metric its job does not declare has NULL
-- unit, direction and statistic.

CREATE VIEW v_declared AS
SELECT	j.id					AS job,
	json_extract(b.value, '$.name')		AS benchmark,
	json_extract(m.value, '$.name')		AS name,
	json_extract(m.value, '$.unit')		AS unit,
	json_extract(m.value, '$.direction')	AS direction,
	json_extract(m.value, '$.statistic')	AS statistic,
	json_extract(m.value, '$.label')	AS label,
	CAST(b.key AS INTEGER)			AS benchmark_position,
	CAST(m.key AS INTEGER)			AS position,
	CAST(b.key AS INTEGER) * 1000000 + CAST(m.key AS INTEGER) AS slot
FROM jobs j, json_each(j.spec, '$.benchmarks') b,
	json_each(b.value, '$.metrics') m;

DROP VIEW v_samples;
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
	d.unit		AS unit,
	d.direction	AS direction,
	d.statistic	AS statistic,
	s.iteration	AS iteration,
	s.repeat	AS repeat,
	s.value		AS value
FROM samples s
JOIN runs r ON r.id = s.run
JOIN jobs j ON j.id = r.job
JOIN kernels k ON k.id = r.kernel
-- the declaration of the sample's name, else the first matching pattern
LEFT JOIN v_declared d ON d.job = r.job AND d.slot = (
	SELECT MIN((x.name <> s.metric) * 1000000000000 + x.slot)
	FROM v_declared x
	WHERE x.job = r.job AND x.benchmark = r.benchmark
	AND (x.name = s.metric OR
	    (instr(x.name, '*') > 0 AND s.metric GLOB x.name))) % 1000000000000;
