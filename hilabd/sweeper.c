/*
 * Scheduled sweeps: each tick, hilabd compares the sweeps' newly done jobs
 * with the done job before them, then queues every due sweep from its job
 * file as it reads now (a branch name as git base resolves anew when the
 * kernel is built).  A sweep whose last job is still queued or running is
 * skipped to its next slot, and so is one whose job file is invalid.
 */
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

/* The key fields of a comparison group, in the order groups are tested. */
enum { SW_MACHINE, SW_KERNEL, SW_BENCHMARK, SW_PARAMS, SW_METRIC, SW_NKEY };

/* The samples of one comparison key: [0] the base job, [1] the new one. */
struct sweeper_group {
	char		*key[SW_NKEY];
	char		*unit;
	enum compare_dir dir; /* unknown when a job does not declare it or
				 the two jobs declare it differently */
	char   *statistic;
	double *x[2];
	size_t	n[2];
};

/* Every comparison group of the two jobs while their samples are read. */
struct sweeper_gather {
	int64_t		      job; /* the new job, side 1 */
	struct sweeper_group *v;
	size_t		      n;
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

/* Frees the strings and samples of g. */
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
}

/* The key fields of a sample, in enum order. */
static void
sweeper_key(const struct db_job_sample *x, const char *key[SW_NKEY])
{
	key[SW_MACHINE] = x->machine;
	key[SW_KERNEL] = x->kernel;
	key[SW_BENCHMARK] = x->benchmark;
	key[SW_PARAMS] = x->params;
	key[SW_METRIC] = x->metric;
}

/* The group of the sample's key, added if new. */
static struct sweeper_group *
sweeper_group(struct sweeper_gather *w, const struct db_job_sample *x)
{
	struct sweeper_group *g;
	const char	     *key[SW_NKEY];
	size_t		      i;
	int		      k;

	sweeper_key(x, key);
	for (i = w->n; i > 0; i--) {
		g = &w->v[i - 1];
		for (k = 0; k < SW_NKEY && strcmp(g->key[k], key[k]) == 0; k++)
			;
		if (k == SW_NKEY)
			return g;
	}
	w->v = xreallocarray(w->v, w->n + 1, sizeof *w->v);
	g = &w->v[w->n++];
	memset(g, 0, sizeof *g);
	for (k = 0; k < SW_NKEY; k++)
		g->key[k] = xstrdup(key[k]);
	g->unit = xstrdup(x->unit);
	g->dir = compare_dir_parse(x->direction);
	g->statistic = xstrdup(x->statistic);
	return g;
}

/* Adds a sample to the base or new side of its group (a db_sample_cb). */
static void
sweeper_sample_cb(const struct db_job_sample *x, void *arg)
{
	struct sweeper_gather *w = arg;
	struct sweeper_group  *g = sweeper_group(w, x);
	int		       side = x->job == w->job;

	if (compare_dir_parse(x->direction) != g->dir ||
	    strcmp(x->unit, g->unit) != 0)
		g->dir = COMPARE_DIR_UNKNOWN;
	g->x[side] =
	    xreallocarray(g->x[side], g->n[side] + 1, sizeof *g->x[side]);
	g->x[side][g->n[side]++] = x->value;
}

/* Orders groups by machine, kernel, benchmark, params, metric. */
static int
sweeper_group_cmp(const void *a, const void *b)
{
	const struct sweeper_group *ga = a, *gb = b;
	int			    k, d;

	for (k = 0; k < SW_NKEY; k++) {
		if ((d = strcmp(ga->key[k], gb->key[k])) != 0)
			return d;
	}
	return 0;
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

	if (g->n[0] == 0 || g->n[1] == 0)
		return 0;
	compare_stat_parse(g->statistic, &stat);
	t = compare_table_new(g->key[SW_BENCHMARK], g->key[SW_METRIC], g->unit,
	    g->dir, stat);
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

/* Tests every group of w in key order. */
static int
sweeper_test_all(struct db *db, int64_t sweep, const char *name,
    struct sweeper_gather *w, struct sweeper_counts *k, char **cause)
{
	size_t i;

	if (w->n > 1)
		qsort(w->v, w->n, sizeof *w->v, sweeper_group_cmp);
	for (i = 0; i < w->n; i++) {
		if (sweeper_group_test(db, sweep, name, w->job, &w->v[i], k,
			cause) == -1)
			return -1;
	}
	return 0;
}

/* Compares job with base; see hilabd/sweeper.h. */
int
sweeper_compare(struct db *db, int64_t sweep, const char *name, int64_t base,
    int64_t job, char **cause)
{
	struct sweeper_counts k = { 0, 0 };
	struct sweeper_gather w = { .job = job };
	const int64_t	      jobs[2] = { base, job };
	char		     *why = NULL;
	size_t		      i;
	int		      rc = -1;

	if (db_samples_of_jobs(db, jobs, 2, NULL, NULL, sweeper_sample_cb, &w,
		&why) == -1) {
		*cause = xasprintf("sweep \"%s\": read samples: %s", name, why);
		goto out;
	}
	if (sweeper_test_all(db, sweep, name, &w, &k, cause) == -1)
		goto out;
	if (db_sweep_event_add(db, sweep, job, DB_INFO, cause,
		"sweep \"%s\": "
		"job %lld against job %lld: %d of %d metrics worse",
		name, (long long)job, (long long)base, k.worse,
		k.compared) == -1)
		goto out;
	rc = k.worse;
out:
	for (i = 0; i < w.n; i++)
		sweeper_group_clear(&w.v[i]);
	free(w.v);
	free(why);
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
