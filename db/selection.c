/*
 * What comparison tables and sweeps read: the samples that count (one
 * rule, DB_SAMPLES_COUNT: runs done and not superseded) with the meaning
 * their own job declares for them, the newest done job that has any, the
 * jobs a database lacks, how many kernels and machines a selection
 * spans, and the adaptive iterations behind its tables.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/metric.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

/* Column numbers of the samples query. */
enum { SEL_RUN, SEL_METRIC, SEL_VALUE };

/*
 * What a sample shares with its run, looked up once per run rather than
 * carried in every sample row through SQLite's sort: rows that wide made
 * the sort of 300 000 samples spill to disk.
 */
struct selection_run {
	int64_t run; /* 0: none yet */
	char   *benchmark;
	char   *params;
	char   *kernel;
	char   *machine;
	int64_t job;
	int	boot;
	char   *facts;
	char   *cmdline;
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

/* A text column, or NULL for SQL NULL. */
static const char *
selection_opt(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

/* A copy of a column's text, or NULL for NULL. */
static char *
selection_dup(const char *t)
{
	return t != NULL ? xstrdup(t) : NULL;
}

/* One metric a job declares for one of its benchmarks. */
struct selection_decl {
	int64_t job;
	char   *benchmark;
	char   *name; /* a name, or a pattern with '*' */
	char   *unit;
	char   *direction;
	char   *statistic;
	char   *label;
	long	position; /* in the benchmark's metrics */
};

/* The declarations of the selected jobs and the last one looked up. */
struct selection_decls {
	struct selection_decl *v;
	size_t		       n;
	int64_t		       job; /* the key of last */
	char		      *benchmark;
	char		      *metric;
	long		       last; /* index into v, or -1 */
};

/* Reads every metric the jobs declare, in the order they declare them. */
static int
selection_decls_read(struct db *db, const int64_t *jobs, size_t njobs,
    struct selection_decls *d, char **cause)
{
	static const char sql[] =
	    "SELECT job, benchmark, name, unit, direction, statistic, label, "
	    "position FROM v_declared "
	    "WHERE job IN (SELECT value FROM json_each(?1)) ORDER BY job, slot";
	struct selection_decl *x;
	sqlite3_stmt	      *s;
	char		      *ids;
	int		       rc;

	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		d->v = xreallocarray(d->v, d->n + 1, sizeof *d->v);
		x = &d->v[d->n++];
		x->job = sqlite3_column_int64(s, 0);
		x->benchmark = xstrdup(selection_text(s, 1));
		x->name = xstrdup(selection_text(s, 2));
		x->unit = xstrdup(selection_text(s, 3));
		x->direction = xstrdup(selection_text(s, 4));
		x->statistic = xstrdup(selection_text(s, 5));
		x->label = db_column_text(s, 6);
		x->position = (long)sqlite3_column_int64(s, 7);
	}
	sqlite3_reset(s);
	free(ids);
	if (rc != SQLITE_DONE)
		return db_fail(db, cause, "read declared metrics");
	return 0;
}

/* Frees the declarations. */
static void
selection_decls_free(struct selection_decls *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].benchmark);
		free(d->v[i].name);
		free(d->v[i].unit);
		free(d->v[i].direction);
		free(d->v[i].statistic);
		free(d->v[i].label);
	}
	free(d->v);
	free(d->benchmark);
	free(d->metric);
}

/*
 * The declaration of a metric of a job's benchmark: the one of its name,
 * else the first pattern that matches it; -1 when the job declares none.
 */
static long
selection_decl_find(struct selection_decls *d, int64_t job,
    const char *benchmark, const char *metric)
{
	long   best = -1;
	size_t i;
	int    m, best_m = 0;

	if (d->benchmark != NULL && d->job == job &&
	    strcmp(d->benchmark, benchmark) == 0 &&
	    strcmp(d->metric, metric) == 0)
		return d->last;
	for (i = 0; i < d->n && best_m < 2; i++) {
		if (d->v[i].job != job ||
		    strcmp(d->v[i].benchmark, benchmark) != 0)
			continue;
		if ((m = metric_declares(d->v[i].name, metric)) > best_m) {
			best = (long)i;
			best_m = m;
		}
	}
	free(d->benchmark);
	free(d->metric);
	d->job = job;
	d->benchmark = xstrdup(benchmark);
	d->metric = xstrdup(metric);
	d->last = best;
	return best;
}

/* Frees what *sr holds and zeroes it. */
static void
selection_run_clear(struct selection_run *sr)
{
	free(sr->benchmark);
	free(sr->params);
	free(sr->kernel);
	free(sr->machine);
	free(sr->facts);
	free(sr->cmdline);
	memset(sr, 0, sizeof *sr);
}

/* Reads what run's samples share into *sr unless it holds them. */
static int
selection_run_get(struct db *db, int64_t run, struct selection_run *sr,
    char **cause)
{
	static const char sql[] =
	    "SELECT r.benchmark, r.params, k.name, r.machine, r.job, r.boot, "
	    "r.facts, k.cmdline FROM runs r "
	    "JOIN kernels k ON k.id = r.kernel WHERE r.id = ?1";
	sqlite3_stmt *s;
	int	      rc;

	if (sr->run == run)
		return 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	selection_run_clear(sr);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sr->benchmark = xstrdup(selection_text(s, 0));
		sr->params = xstrdup(selection_text(s, 1));
		sr->kernel = xstrdup(selection_text(s, 2));
		sr->machine = xstrdup(selection_text(s, 3));
		sr->job = sqlite3_column_int64(s, 4);
		sr->boot = sqlite3_column_int(s, 5);
		sr->facts = selection_dup(selection_opt(s, 6));
		sr->cmdline = selection_dup(selection_opt(s, 7));
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW)
		return db_fail(db, cause, "select a run's facts");
	sr->run = run;
	return 0;
}

/*
 * Fills a sample from a row of the samples query, its run and its
 * declaration.
 */
static void
selection_read(sqlite3_stmt *s, const struct selection_run *sr,
    struct selection_decls *d, struct db_job_sample *x)
{
	const struct selection_decl *m;
	long			     i;

	x->benchmark = sr->benchmark;
	x->metric = selection_text(s, SEL_METRIC);
	x->params = sr->params;
	x->kernel = sr->kernel;
	x->machine = sr->machine;
	x->job = sr->job;
	x->run = sr->run;
	x->boot = sr->boot;
	x->value = sqlite3_column_double(s, SEL_VALUE);
	x->facts = sr->facts;
	x->cmdline = sr->cmdline;
	i = selection_decl_find(d, x->job, x->benchmark, x->metric);
	m = i >= 0 ? &d->v[i] : NULL;
	x->unit = m != NULL ? m->unit : "";
	x->direction = m != NULL ? m->direction : "";
	x->statistic = m != NULL ? m->statistic : "amean";
	x->label = m != NULL ? m->label : NULL;
	x->position = m != NULL ? m->position : LONG_MAX;
}

/* Calls cb for every sample that counts; see db.h. */
int
db_samples_of_jobs(struct db *db, const int64_t *jobs, size_t njobs,
    const char *benchmark, const char *metric, db_sample_cb cb, void *arg,
    char **cause)
{
	/*
	 * The runs that count with their sort keys first, each worked out
	 * once per run: the jobs in the order given, each in its own kernel
	 * order.
	 */
	static const char sql[] =
	    "WITH o AS MATERIALIZED (SELECT r.id, r.benchmark, r.round, "
	    "r.position, "
	    "(SELECT MIN(CAST(key AS INTEGER)) FROM json_each(?1) "
	    "WHERE value = r.job) AS job_order, "
	    "(SELECT CAST(e.key AS INTEGER) FROM jobs j, "
	    "json_each(j.spec, '$.kernels') e WHERE j.id = r.job AND "
	    "json_extract(e.value, '$.name') = k.name) AS kernel_order "
	    "FROM runs r JOIN kernels k ON k.id = r.kernel "
	    "WHERE r.job IN (SELECT value FROM json_each(?1)) "
	    "AND " DB_SAMPLES_COUNT "AND (?2 IS NULL OR r.benchmark = ?2)) "
	    "SELECT o.id, s.metric, s.value FROM o "
	    "JOIN samples s ON s.run = o.id "
	    "WHERE (?3 IS NULL OR s.metric = ?3) "
	    "ORDER BY o.benchmark, s.metric, o.job_order, o.kernel_order, "
	    "o.round, o.position, s.iteration, o.id, s.repeat";
	struct selection_decls d = { .last = -1 };
	struct selection_run   sr = { 0 };
	struct db_job_sample   x;
	sqlite3_stmt	      *s;
	char		      *ids = NULL;
	int		       rc = SQLITE_ERROR;

	if (selection_decls_read(db, jobs, njobs, &d, cause) == -1)
		goto out;
	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		goto out;
	db_bind_text(s, 2, benchmark);
	db_bind_text(s, 3, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (selection_run_get(db, sqlite3_column_int64(s, SEL_RUN), &sr,
			cause) == -1)
			break;
		selection_read(s, &sr, &d, &x);
		cb(&x, arg);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		db_fail(db, cause, "select samples");
out:
	free(ids);
	selection_run_clear(&sr);
	selection_decls_free(&d);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The newest done job with a sample that counts; see db.h. */
int64_t
db_samples_latest_job(struct db *db, char **cause)
{
	static const char sql[] =
	    "SELECT MAX(r.job) FROM runs r JOIN jobs j ON j.id = r.job "
	    "WHERE j.state = 'done' AND " DB_SAMPLES_COUNT
	    "AND EXISTS (SELECT 1 FROM samples s WHERE s.run = r.id)";
	sqlite3_stmt *s;
	int64_t	      id = 0;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? id : db_fail(db, cause, "latest job");
}

/* The first of the jobs the database does not have; see db.h. */
int
db_jobs_missing(struct db *db, const int64_t *jobs, size_t njobs,
    int64_t *missing, char **cause)
{
	static const char sql[] =
	    "SELECT CAST(e.value AS INTEGER) FROM json_each(?1) e "
	    "WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = e.value) "
	    "ORDER BY CAST(e.key AS INTEGER) LIMIT 1";
	sqlite3_stmt *s;
	char	     *ids;
	int	      rc;

	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*missing = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	free(ids);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, cause, "find jobs");
	return rc == SQLITE_ROW;
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

/* Calls cb for each adaptive row of the jobs; see db.h. */
int
db_adapt_of_jobs(struct db *db, const int64_t *jobs, size_t njobs,
    db_adapt_cb cb, void *arg, char **cause)
{
	static const char sql[] =
	    "SELECT a.job, a.machine, a.kernel, k.name, a.benchmark, "
	    "a.params, a.metric, a.statistic, a.iterations, a.precision, "
	    "a.target, a.min, a.max, a.reached, a.done FROM adaptive a "
	    "JOIN kernels k ON k.id = a.kernel WHERE a.job IN "
	    "(SELECT value FROM json_each(?1)) ORDER BY a.job, a.machine, "
	    "a.benchmark, a.params, a.rowid";
	struct db_adapt a;
	sqlite3_stmt   *s;
	char	       *ids;
	int		rc;

	if ((s = selection_stmt(db, sql, jobs, njobs, &ids, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		a = (struct db_adapt){ .job = sqlite3_column_int64(s, 0),
			.machine = selection_text(s, 1),
			.kernel = sqlite3_column_int64(s, 2),
			.kernel_name = selection_text(s, 3),
			.benchmark = selection_text(s, 4),
			.params = selection_text(s, 5),
			.metric = selection_text(s, 6),
			.statistic = selection_text(s, 7),
			.iterations = sqlite3_column_int(s, 8),
			.precision = sqlite3_column_type(s, 9) == SQLITE_NULL
			    ? NAN
			    : sqlite3_column_double(s, 9),
			.target = sqlite3_column_double(s, 10),
			.min = sqlite3_column_int(s, 11),
			.max = sqlite3_column_int(s, 12),
			.reached = sqlite3_column_int(s, 13) != 0,
			.done = sqlite3_column_int(s, 14) != 0 };
		cb(&a, arg);
	}
	sqlite3_reset(s);
	free(ids);
	return rc == SQLITE_DONE ? 0 : db_fail(db, cause, "list adaptive");
}
