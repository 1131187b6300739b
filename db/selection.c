/*
 * What comparison tables and sweeps read: the samples that count (one
 * rule, DB_SAMPLES_COUNT: runs done and not superseded), the newest job
 * that has any, how many kernels and machines a selection spans, and
 * where its jobs list a metric.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* Column numbers of the samples query. */
enum {
	SEL_BENCHMARK,
	SEL_METRIC,
	SEL_UNIT,
	SEL_DIRECTION,
	SEL_STATISTIC,
	SEL_PARAMS,
	SEL_KERNEL,
	SEL_MACHINE,
	SEL_JOB,
	SEL_RUN,
	SEL_BOOT,
	SEL_VALUE,
	SEL_FACTS,
	SEL_CMDLINE
};

/* The jobs as a JSON array for json_each() (caller frees). */
static char *
selection_jobs_json(const int64_t *jobs, size_t njobs)
{
	char  *s = xstrdup("["), *t;
	size_t i;

	for (i = 0; i < njobs; i++) {
		t = xasprintf("%s%s%lld", s, i ? "," : "", (long long)jobs[i]);
		free(s);
		s = t;
	}
	t = xasprintf("%s]", s);
	free(s);
	return t;
}

/*
 * The connection's statement for sql with the jobs bound to ?1 as *ids,
 * which the caller frees once the statement is reset.
 */
static sqlite3_stmt *
selection_stmt(struct db *db, const char *sql, const int64_t *jobs,
    size_t njobs, char **ids, char **cause)
{
	sqlite3_stmt *s;

	*ids = NULL;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	*ids = selection_jobs_json(jobs, njobs);
	db_bind_text(s, 1, *ids);
	return s;
}

/* A text column, never NULL. */
static const char *
selection_text(sqlite3_stmt *s, int col)
{
	const char *t = (const char *)sqlite3_column_text(s, col);

	return t != NULL ? t : "";
}

/* Fills a sample from a row of the samples query. */
static void
selection_read(sqlite3_stmt *s, struct db_job_sample *x)
{
	x->benchmark = selection_text(s, SEL_BENCHMARK);
	x->metric = selection_text(s, SEL_METRIC);
	x->unit = selection_text(s, SEL_UNIT);
	x->direction = selection_text(s, SEL_DIRECTION);
	x->statistic = selection_text(s, SEL_STATISTIC);
	x->params = selection_text(s, SEL_PARAMS);
	x->kernel = selection_text(s, SEL_KERNEL);
	x->machine = selection_text(s, SEL_MACHINE);
	x->job = sqlite3_column_int64(s, SEL_JOB);
	x->run = sqlite3_column_int64(s, SEL_RUN);
	x->boot = sqlite3_column_int(s, SEL_BOOT);
	x->value = sqlite3_column_double(s, SEL_VALUE);
	x->facts = (const char *)sqlite3_column_text(s, SEL_FACTS);
	x->cmdline = (const char *)sqlite3_column_text(s, SEL_CMDLINE);
}

/* Calls cb for every sample that counts; see db.h. */
int
db_samples_of_jobs(struct db *db, const int64_t *jobs, size_t njobs,
    const char *benchmark, const char *metric, db_sample_cb cb, void *arg,
    char **cause)
{
	static const char sql[] =
	    "SELECT r.benchmark, s.metric, "
	    "COALESCE(m.unit, ''), COALESCE(m.direction, 'lower'), "
	    "COALESCE(m.statistic, 'amean'), r.params, k.name, r.machine, "
	    "r.job, r.id, r.boot, s.value, r.facts, k.cmdline "
	    "FROM samples s JOIN runs r ON r.id = s.run "
	    "JOIN kernels k ON k.id = r.kernel "
	    "LEFT JOIN metrics m ON m.name = s.metric "
	    "WHERE r.job IN (SELECT value FROM json_each(?1)) "
	    "AND " DB_SAMPLES_COUNT "AND (?2 IS NULL OR r.benchmark = ?2) "
	    "AND (?3 IS NULL OR s.metric = ?3) "
	    "ORDER BY r.benchmark, s.metric, r.job, "
	    /* the job's own kernel order: its first kernel is the base */
	    "(SELECT CAST(e.key AS INTEGER) FROM jobs j, "
	    "json_each(j.spec, '$.kernels') e WHERE j.id = r.job AND "
	    "json_extract(e.value, '$.name') = k.name), "
	    "r.round, r.position, s.iteration, r.id, s.repeat";
	struct db_job_sample x;
	sqlite3_stmt	    *s;
	char		    *ids;
	int		     rc;

	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	db_bind_text(s, 2, benchmark);
	db_bind_text(s, 3, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		selection_read(s, &x);
		cb(&x, arg);
	}
	if (rc != SQLITE_DONE)
		db_fail(db, cause, "select samples");
	sqlite3_reset(s);
	free(ids);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The newest job with a sample that counts; see db.h. */
int64_t
db_samples_latest_job(struct db *db, char **cause)
{
	static const char sql[] =
	    "SELECT MAX(r.job) FROM runs r "
	    "WHERE " DB_SAMPLES_COUNT "AND EXISTS (SELECT 1 FROM samples s "
	    "WHERE s.run = r.id)";
	sqlite3_stmt *s;
	int64_t	      id = 0;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	else
		db_fail(db, cause, "latest job");
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? id : -1;
}

/* How many kernels and machines the runs of the jobs have. */
int
db_jobs_count(struct db *db, const int64_t *jobs, size_t njobs, int *kernels,
    int *machines, char **cause)
{
	static const char sql[] =
	    "SELECT COUNT(DISTINCT k.name), "
	    "COUNT(DISTINCT r.machine) FROM runs r JOIN kernels k "
	    "ON k.id = r.kernel WHERE r.job IN (SELECT value FROM "
	    "json_each(?1))";
	sqlite3_stmt *s;
	char	     *ids;
	int	      rc;

	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*kernels = sqlite3_column_int(s, 0);
		*machines = sqlite3_column_int(s, 1);
	} else
		db_fail(db, cause, "count runs");
	sqlite3_reset(s);
	free(ids);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Where the first of the jobs that lists a metric lists it; see db.h. */
int
db_metric_place(struct db *db, const int64_t *jobs, size_t njobs,
    const char *benchmark, const char *metric, char **label, long *position,
    char **cause)
{
	static const char sql[] =
	    "SELECT json_extract(m.value, "
	    "'$.label'), CAST(m.key AS INTEGER) FROM jobs j, "
	    "json_each(j.spec, '$.benchmarks') b, "
	    "json_each(b.value, '$.metrics') m "
	    "WHERE j.id IN (SELECT value FROM json_each(?1)) "
	    "AND json_extract(b.value, '$.name') = ?2 "
	    "AND json_extract(m.value, '$.name') = ?3 "
	    "ORDER BY json_extract(m.value, '$.label') IS NULL, j.id LIMIT 1";
	sqlite3_stmt *s;
	char	     *ids;
	int	      rc;

	*label = NULL;
	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	db_bind_text(s, 2, benchmark);
	db_bind_text(s, 3, metric);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_type(s, 0) == SQLITE_TEXT)
			*label = db_column_text(s, 0);
		*position = (long)sqlite3_column_int64(s, 1);
	} else if (rc != SQLITE_DONE)
		db_fail(db, cause, "metric labels");
	sqlite3_reset(s);
	free(ids);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
