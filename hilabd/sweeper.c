/*
 * Scheduled sweeps: each tick, hilabd compares the sweeps' newly done jobs
 * with the done job before them, then queues every due sweep from its job
 * file as it reads now (a branch name as git base resolves anew when the
 * kernel is built).  A sweep whose last job is still queued or running is
 * skipped to its next slot, and so is one whose job file is invalid.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/catalog.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/sweeper.h"
#include "jobs/job.h"
#include "report/compare.h"
#include "report/stats.h"

/*
 * A change smaller than this (percent) is not flagged however significant:
 * with tight samples a shift of a fraction of a percent between two runs
 * hours apart is "significant" and tells nothing about the kernel.
 */
#define SWEEPER_MIN_CHANGE_PCT 1.0

/* Samples of the two jobs per comparison key, base job first in each key. */
static const char sweeper_sql[] =
    "SELECT r.machine, k.name, r.benchmark, r.params, s.metric, "
    "COALESCE(m.unit, ''), COALESCE(m.direction, 'lower'), "
    "COALESCE(m.statistic, 'amean'), r.job, s.value "
    "FROM samples s JOIN runs r ON r.id = s.run "
    "JOIN kernels k ON k.id = r.kernel "
    "LEFT JOIN metrics m ON m.name = s.metric "
    "WHERE r.job IN (?1, ?2) AND r.state = 'done' "
    "ORDER BY r.machine, k.name, r.benchmark, r.params, s.metric, "
    "r.job = ?2, r.round, r.position, s.iteration, s.repeat";

/* Column numbers of sweeper_sql. */
enum {
	SW_MACHINE,
	SW_KERNEL,
	SW_BENCHMARK,
	SW_PARAMS,
	SW_METRIC,
	SW_UNIT,
	SW_DIRECTION,
	SW_STATISTIC,
	SW_JOB,
	SW_VALUE,
	SW_NKEY = SW_UNIT
};

/* The samples of one comparison key: [0] the base job, [1] the new one. */
struct sweeper_group {
	char   *key[SW_NKEY];
	char   *unit;
	bool	higher;
	char   *statistic;
	double *x[2];
	size_t	n[2];
};

/* What a comparison found. */
struct sweeper_counts {
	int compared;
	int worse;
};

/* Logs a failed database write of the sweeper and frees the cause. */
static void
sweeper_warn(char *cause)
{
	log_warn("sweeper", "%s", cause);
	free(cause);
}

/* Frees the strings and samples of g and zeroes it. */
static void
sweeper_group_clear(struct sweeper_group *g)
{
	int i;

	for (i = 0; i < SW_NKEY; i++)
		free(g->key[i]);
	free(g->unit);
	free(g->statistic);
	free(g->x[0]);
	free(g->x[1]);
	memset(g, 0, sizeof *g);
}

/* Whether the row belongs to the key of g. */
static bool
sweeper_group_same(const struct sweeper_group *g, sqlite3_stmt *s)
{
	const char *v;
	int	    i;

	if (g->key[0] == NULL)
		return false;
	for (i = 0; i < SW_NKEY; i++) {
		v = (const char *)sqlite3_column_text(s, i);
		if (strcmp(g->key[i], v != NULL ? v : "") != 0)
			return false;
	}
	return true;
}

/* Starts g at the key of the row. */
static void
sweeper_group_start(struct sweeper_group *g, sqlite3_stmt *s)
{
	const char *v;
	int	    i;

	for (i = 0; i < SW_NKEY; i++) {
		v = (const char *)sqlite3_column_text(s, i);
		g->key[i] = xstrdup(v != NULL ? v : "");
	}
	g->unit = xstrdup((const char *)sqlite3_column_text(s, SW_UNIT));
	g->higher = strcmp((const char *)sqlite3_column_text(s, SW_DIRECTION),
			"higher") == 0;
	g->statistic =
	    xstrdup((const char *)sqlite3_column_text(s, SW_STATISTIC));
}

/* Adds the row's value to the base or new side of g. */
static void
sweeper_group_add(struct sweeper_group *g, sqlite3_stmt *s, int64_t job)
{
	int side = sqlite3_column_int64(s, SW_JOB) == job;

	g->x[side] =
	    xreallocarray(g->x[side], g->n[side] + 1, sizeof *g->x[side]);
	g->x[side][g->n[side]++] = sqlite3_column_double(s, SW_VALUE);
}

/* "hackbench time groups=4 on epyc" (and the kernel unless "running"). */
static char *
sweeper_group_label(const struct sweeper_group *g)
{
	const char *kernel = g->key[SW_KERNEL];
	bool	    running = strcmp(kernel, JOB_KERNEL_RUNNING_NAME) == 0;

	return xasprintf("%s %s%s%s on %s%s%s%s", g->key[SW_BENCHMARK],
	    g->key[SW_METRIC], *g->key[SW_PARAMS] ? " " : "", g->key[SW_PARAMS],
	    g->key[SW_MACHINE], running ? "" : " (kernel ",
	    running ? "" : kernel, running ? "" : ")");
}

/* Logs the regression of g that table t (base, new) found. */
static int
sweeper_report(struct db *db, int64_t sweep, const char *name, int64_t job,
    const struct sweeper_group *g, const struct compare_table *t, char **cause)
{
	const struct compare_cell *b = compare_table_cell(t, 0, 0);
	const struct compare_cell *c = compare_table_cell(t, 0, 1);
	char			  *label;
	int			   d = compare_table_decimals(t), rc;

	label = sweeper_group_label(g);
	rc = db_sweep_event_add(db, sweep, job, DB_WARN, cause,
	    "sweep \"%s\": %s: %.*f -> %.*f%s%s (%+.1f%%, worse, p=%.2g)", name,
	    label, d, b->value, d, c->value, *g->unit ? " " : "", g->unit,
	    c->delta, c->test.p);
	free(label);
	return rc;
}

/* Tests the new side of g against its base; a warn event if worse. */
static int
sweeper_group_test(struct db *db, int64_t sweep, const char *name, int64_t job,
    const struct sweeper_group *g, struct sweeper_counts *k, char **cause)
{
	struct compare_table	  *t;
	const struct compare_cell *c;
	enum compare_stat	   stat = COMPARE_AMEAN;
	int			   rc = 0;

	if (g->key[0] == NULL || g->n[0] == 0 || g->n[1] == 0)
		return 0;
	compare_stat_parse(g->statistic, &stat);
	t = compare_table_new(g->key[SW_BENCHMARK], g->key[SW_METRIC], g->unit,
	    g->higher ? COMPARE_HIGHER_BETTER : COMPARE_LOWER_BETTER, stat);
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "new");
	compare_table_add_row(t, g->key[SW_PARAMS]);
	compare_table_set_samples(t, 0, 0, g->x[0], g->n[0]);
	compare_table_set_samples(t, 0, 1, g->x[1], g->n[1]);
	compare_table_compute(t);
	c = compare_table_cell(t, 0, 1);
	k->compared++;
	if (c->test.done && c->test.p < STATS_ALPHA &&
	    c->pct_imp <= -SWEEPER_MIN_CHANGE_PCT) {
		k->worse++;
		rc = sweeper_report(db, sweep, name, job, g, t, cause);
	}
	compare_table_free(t);
	return rc;
}

/* Walks the rows of a bound sweeper_sql statement, testing each key. */
static int
sweeper_walk(struct db *db, sqlite3_stmt *s, int64_t sweep, const char *name,
    int64_t job, struct sweeper_counts *k, char **cause)
{
	struct sweeper_group g = { 0 };
	int		     rc, ret = -1;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!sweeper_group_same(&g, s)) {
			if (sweeper_group_test(db, sweep, name, job, &g, k,
				cause) == -1)
				goto out;
			sweeper_group_clear(&g);
			sweeper_group_start(&g, s);
		}
		sweeper_group_add(&g, s, job);
	}
	if (rc != SQLITE_DONE) {
		*cause = xasprintf("sweep \"%s\": read samples: %s", name,
		    sqlite3_errmsg(db_sqlite(db)));
		goto out;
	}
	ret = sweeper_group_test(db, sweep, name, job, &g, k, cause);
out:
	sweeper_group_clear(&g);
	return ret;
}

/* Compares job with base; see hilabd/sweeper.h. */
int
sweeper_compare(struct db *db, int64_t sweep, const char *name, int64_t base,
    int64_t job, char **cause)
{
	struct sweeper_counts k = { 0, 0 };
	sqlite3_stmt	     *s;
	int		      rc = -1;

	if (sqlite3_prepare_v2(db_sqlite(db), sweeper_sql, -1, &s, NULL) !=
	    SQLITE_OK) {
		*cause = xasprintf("sweep \"%s\": read samples: %s", name,
		    sqlite3_errmsg(db_sqlite(db)));
		return -1;
	}
	sqlite3_bind_int64(s, 1, base);
	sqlite3_bind_int64(s, 2, job);
	if (sweeper_walk(db, s, sweep, name, job, &k, cause) == -1)
		goto out;
	if (db_sweep_event_add(db, sweep, job, DB_INFO, cause,
		"sweep \"%s\": "
		"job %lld against job %lld: %d of %d metrics worse",
		name, (long long)job, (long long)base, k.worse,
		k.compared) == -1)
		goto out;
	rc = k.worse;
out:
	sqlite3_finalize(s);
	return rc;
}

/* The newest done job of the sweep older than job, or 0. */
static int64_t
sweeper_base(struct db *db, const struct db_sweep *w, int64_t job, char **cause)
{
	struct db_job *v;
	size_t	       n, i;
	int64_t	       base = 0;

	if (db_sweep_jobs(db, w->id, &v, &n, cause) == -1)
		return -1;
	for (i = 0; i < n && base == 0; i++)
		if (v[i].id < job && v[i].state == DB_DONE)
			base = v[i].id;
	db_job_list_free(v, n);
	return base;
}

/* Compares the sweep's last job once it is done; marks it checked. */
static void
sweeper_check(struct db *db, const struct db_sweep *w)
{
	char   *cause = NULL;
	int64_t base;
	int	worse = 0;

	if (w->last_job == 0 || w->last_job == w->checked_job ||
	    w->last_state == DB_QUEUED || w->last_state == DB_RUNNING)
		return;
	if (w->last_state == DB_DONE) {
		if ((base = sweeper_base(db, w, w->last_job, &cause)) == -1 ||
		    (base != 0 &&
			(worse = sweeper_compare(db, w->id, w->name, base,
			     w->last_job, &cause)) == -1)) {
			sweeper_warn(cause);
			return;
		}
		if (base != 0 && worse > 0)
			log_warn("sweeper",
			    "sweep \"%s\": job %lld: %d "
			    "metric%s worse than job %lld",
			    w->name, (long long)w->last_job, worse,
			    worse == 1 ? "" : "s", (long long)base);
	}
	if (db_sweep_set_checked(db, w->id, w->last_job, &cause) == -1)
		sweeper_warn(cause);
}

/* Moves a sweep that was not queued to its next slot, with an event. */
static void
sweeper_pass(struct db *db, const struct db_sweep *w, int64_t next,
    enum db_level level, const char *why)
{
	char *cause = NULL;

	log_info("sweeper", "sweep \"%s\": %s", w->name, why);
	if (db_sweep_event_add(db, w->id, 0, level, &cause,
		"sweep \"%s\": "
		"%s",
		w->name, why) == -1 ||
	    db_sweep_set_next(db, w->id, next, &cause) == -1)
		sweeper_warn(cause);
}

/* Loads the sweep's job file as it reads now; NULL with *cause. */
static struct job *
sweeper_load(struct daemon *d, const struct db_sweep *w, char **cause)
{
	const char     *dbp, *sock, *machines, *catalog;
	struct catalog *cat;
	struct job     *job;
	char	       *p;

	paths_defaults(&dbp, &sock, &machines, &catalog);
	if ((cat = catalog_load(catalog, cause)) == NULL)
		return NULL;
	job = job_load(w->file, cat, d->inventory, cause);
	catalog_free(cat);
	if (job == NULL)
		for (p = *cause; (p = strchr(p, '\n')) != NULL; p++)
			*p = ';';
	return job;
}

/* Queues one due sweep, or skips it to its next slot. */
static void
sweeper_queue(struct daemon *d, struct db *db, const struct db_sweep *w,
    int64_t now)
{
	struct job *job;
	char	   *why, *json, *cause = NULL;
	int64_t	    next, id;

	next = db_sweep_next_at(w->interval_ms, w->at_minute, w->next_at, now);
	if (w->last_job != 0 &&
	    (w->last_state == DB_QUEUED || w->last_state == DB_RUNNING)) {
		why = xasprintf("skipped: job %lld is still %s",
		    (long long)w->last_job, db_state_name(w->last_state));
		sweeper_pass(db, w, next, DB_INFO, why);
		free(why);
		return;
	}
	if ((job = sweeper_load(d, w, &cause)) == NULL) {
		why = xasprintf("not queued: %s", cause);
		sweeper_pass(db, w, next, DB_ERROR, why);
		free(why);
		free(cause);
		return;
	}
	json = job_to_json(job);
	if ((id = db_sweep_queue(db, w->id, job->name, w->file, json, next,
		 &cause)) == -1)
		sweeper_warn(cause);
	else if (db_sweep_event_add(db, w->id, id, DB_INFO, &cause,
		     "sweep \"%s\": queued job %lld", w->name,
		     (long long)id) == -1)
		sweeper_warn(cause);
	else
		log_info("sweeper", "sweep \"%s\": queued job %lld", w->name,
		    (long long)id);
	free(json);
	job_free(job);
}

/* Checks ended sweep jobs, then queues the due sweeps. */
void
sweeper_tick(struct daemon *d, struct db *db)
{
	struct db_sweep *v;
	char		*cause = NULL;
	size_t		 n, i;
	int64_t		 now = db_now_ms();

	if (db_sweep_list(db, &v, &n, &cause) == -1) {
		sweeper_warn(cause);
		return;
	}
	for (i = 0; i < n; i++)
		sweeper_check(db, &v[i]);
	db_sweep_list_free(v, n);
	if (db_sweep_due(db, now, &v, &n, &cause) == -1) {
		sweeper_warn(cause);
		return;
	}
	for (i = 0; i < n; i++)
		sweeper_queue(d, db, &v[i], now);
	db_sweep_list_free(v, n);
}
