/*
 * What comparison tables and sweeps read: the samples that count (one
 * rule, DB_SAMPLES_COUNT: runs done and not superseded) with the meaning
 * their own job declares for them, the newest done job that has any, the
 * jobs a database lacks, how many kernels and machines a selection
 * spans, and the adaptive iterations behind its tables.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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

/*
 * A run that counts, in the tables' order: by benchmark, then its job's
 * place among those asked for, its kernel's place in the job, round and
 * plan position (NULL keys as INT64_MIN: only equality matters here).
 */
struct selection_order {
	int64_t run;
	char   *benchmark;
	int64_t key[4];
};

/* The runs that count, each with its sort keys worked out once. */
static const char selection_runs_sql[] =
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
    "SELECT id, benchmark, job_order, kernel_order, round, position FROM o "
    "ORDER BY benchmark, job_order, kernel_order, round, position, id";

/* Reads the runs that count in order into *v; how many, or -1. */
static long
selection_order_read(struct db *db, const int64_t *jobs, size_t njobs,
    const char *benchmark, struct selection_order **v, char **cause)
{
	struct selection_order *o;
	sqlite3_stmt	       *s;
	char		       *ids;
	size_t			n = 0;
	int			rc, k;

	*v = NULL;
	s = selection_stmt(db, selection_runs_sql, jobs, njobs, &ids, cause);
	if (s == NULL)
		return -1;
	db_bind_text(s, 2, benchmark);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*v = xreallocarray(*v, n + 1, sizeof **v);
		o = &(*v)[n++];
		o->run = sqlite3_column_int64(s, 0);
		o->benchmark = xstrdup(selection_text(s, 1));
		for (k = 0; k < 4; k++)
			o->key[k] = sqlite3_column_type(s, 2 + k) == SQLITE_NULL
			    ? INT64_MIN
			    : sqlite3_column_int64(s, 2 + k);
	}
	sqlite3_reset(s);
	free(ids);
	if (rc != SQLITE_DONE)
		return db_fail(db, cause, "select the runs of samples");
	return (long)n;
}

/* Frees the runs read by selection_order_read. */
static void
selection_order_free(struct selection_order *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].benchmark);
	free(v);
}

/* Whether two runs share every sort key (their samples interleave). */
static bool
selection_order_same(const struct selection_order *a,
    const struct selection_order		  *b)
{
	return strcmp(a->benchmark, b->benchmark) == 0 &&
	    memcmp(a->key, b->key, sizeof a->key) == 0;
}

/* Adds name to the sorted set v of n names unless there. */
static void
selection_names_add(char ***v, size_t *n, const char *name)
{
	size_t lo = 0, hi = *n, mid;
	int    c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((c = strcmp((*v)[mid], name)) == 0)
			return;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	memmove(*v + lo + 1, *v + lo, (*n - lo) * sizeof **v);
	(*v)[lo] = xstrdup(name);
	(*n)++;
}

/*
 * Adds the metrics run has samples of to the sorted set, one seek of the
 * samples' key each rather than a read of every sample.
 */
static int
selection_metrics_add(struct db *db, int64_t run, char ***v, size_t *n,
    char **cause)
{
	static const char sql[] = "SELECT metric FROM samples "
				  "WHERE run = ?1 AND metric > ?2 "
				  "ORDER BY metric LIMIT 1";
	sqlite3_stmt	 *s;
	char		 *last = xstrdup("");
	int		  rc;

	if ((s = db_stmt(db, sql, cause)) == NULL) {
		free(last);
		return -1;
	}
	for (;;) {
		sqlite3_bind_int64(s, 1, run);
		db_bind_text(s, 2, last);
		if ((rc = sqlite3_step(s)) != SQLITE_ROW)
			break;
		free(last);
		last = xstrdup(selection_text(s, 0));
		sqlite3_reset(s);
		selection_names_add(v, n, last);
	}
	sqlite3_reset(s);
	free(last);
	return rc == SQLITE_DONE ? 0 : db_fail(db, cause, "select metrics");
}

/* What one walk over the selected samples shares. */
struct selection_walk {
	struct db	      *db;
	struct selection_decls d;
	struct selection_run   sr;
	db_sample_cb	       cb;
	void		      *arg;
};

/*
 * Passes the samples of metric of the runs v[0..n) (which share every
 * sort key) to the callback: by iteration, run and repeat.  One run's
 * come in the order of the samples' key, with nothing to sort.
 */
static int
selection_walk_runs(struct selection_walk *w, const struct selection_order *v,
    size_t n, const char *metric, char **cause)
{
	static const char one[] =
	    "SELECT run, metric, value FROM samples "
	    "WHERE run = ?1 AND metric = ?2 ORDER BY iteration, repeat";
	static const char several[] =
	    "SELECT run, metric, value FROM samples "
	    "WHERE run IN (SELECT value FROM json_each(?1)) AND metric = ?2 "
	    "ORDER BY iteration, run, repeat";
	struct db_job_sample x;
	sqlite3_stmt	    *s;
	int64_t		    *runs = NULL;
	char		    *ids = NULL;
	size_t		     i;
	int		     rc = SQLITE_ERROR;

	if (n == 1) {
		if ((s = db_stmt(w->db, one, cause)) == NULL)
			return -1;
		sqlite3_bind_int64(s, 1, v[0].run);
	} else {
		runs = xreallocarray(NULL, n, sizeof *runs);
		for (i = 0; i < n; i++)
			runs[i] = v[i].run;
		s = selection_stmt(w->db, several, runs, n, &ids, cause);
		free(runs);
		if (s == NULL)
			return -1;
	}
	db_bind_text(s, 2, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (selection_run_get(w->db, sqlite3_column_int64(s, SEL_RUN),
			&w->sr, cause) == -1)
			break;
		selection_read(s, &w->sr, &w->d, &x);
		w->cb(&x, w->arg);
	}
	sqlite3_reset(s);
	free(ids);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_fail(w->db, cause, "select samples");
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Passes the samples of one benchmark's runs v[0..n) to the callback: by
 * metric (only metric unless NULL), then the runs' order.
 */
static int
selection_walk_benchmark(struct selection_walk *w,
    const struct selection_order *v, size_t n, const char *metric, char **cause)
{
	char **names = NULL;
	size_t nnames = 0, i, m, next;
	int    rc = 0;

	if (metric != NULL)
		selection_names_add(&names, &nnames, metric);
	for (i = 0; i < n && metric == NULL && rc == 0; i++)
		rc = selection_metrics_add(w->db, v[i].run, &names, &nnames,
		    cause);
	for (m = 0; m < nnames && rc == 0; m++) {
		for (i = 0; i < n && rc == 0; i = next) {
			for (next = i + 1;
			     next < n && selection_order_same(&v[i], &v[next]);
			     next++)
				;
			rc = selection_walk_runs(w, v + i, next - i, names[m],
			    cause);
		}
	}
	for (m = 0; m < nnames; m++)
		free(names[m]);
	free(names);
	return rc;
}

/*
 * Calls cb for every sample that counts; see db.h.  The runs are put in
 * order first (a few rows), then each run's samples of a metric are read
 * in the order of the samples' key: no sort of every sample.
 */
int
db_samples_of_jobs(struct db *db, const int64_t *jobs, size_t njobs,
    const char *benchmark, const char *metric, db_sample_cb cb, void *arg,
    char **cause)
{
	struct selection_walk	w = { .db = db,
		  .d = { .last = -1 },
		  .cb = cb,
		  .arg = arg };
	struct selection_order *v = NULL;
	long			n = 0;
	size_t			i, next;
	int			rc = -1;

	if (selection_decls_read(db, jobs, njobs, &w.d, cause) == -1 ||
	    (n = selection_order_read(db, jobs, njobs, benchmark, &v, cause)) ==
		-1)
		goto out;
	rc = 0;
	for (i = 0; i < (size_t)n && rc == 0; i = next) {
		for (next = i + 1; next < (size_t)n &&
		     strcmp(v[next].benchmark, v[i].benchmark) == 0;
		     next++)
			;
		rc = selection_walk_benchmark(&w, v + i, next - i, metric,
		    cause);
	}
out:
	selection_order_free(v, n > 0 ? (size_t)n : 0);
	selection_run_clear(&w.sr);
	selection_decls_free(&w.d);
	return rc;
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
