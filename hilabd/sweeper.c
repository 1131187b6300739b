/*
 * Scheduled sweeps: each tick, hilabd checks the sweeps' newly done jobs
 * (change points in each series of the sweep's history, and a note of the
 * comparison with the done job before), then queues every due sweep from
 * its job file as it reads now (a branch name as git base resolves anew
 * when the kernel is built).  A sweep whose last job is still queued or
 * running is skipped to its next slot, and so is one whose job file is
 * invalid.
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
#include "hilabd/fetcher.h"
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
	int unknown; /* not judged: no direction both jobs declare */
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

/* Notes the change of g that table t (base, new) found, as info. */
static int
sweeper_report(struct db *db, int64_t sweep, const char *name, int64_t job,
    const struct sweeper_group *g, const struct compare_table *t, char **cause)
{
	const struct compare_cell *b = compare_table_cell(t, 0, 0);
	const struct compare_cell *c = compare_table_cell(t, 0, 1);
	char			  *label;
	int			   d = compare_table_decimals(t), rc;

	label = sweeper_group_label(g);
	rc = db_sweep_event_add(db, sweep, job, DB_INFO, cause,
	    "sweep \"%s\": %s: %.*f -> %.*f%s%s (%+.1f%%, worse, p=%.2g)", name,
	    label, d, b->value, d, c->value, *g->unit ? " " : "", g->unit,
	    c->delta, c->test.p);
	free(label);
	return rc;
}

/* A computed table of one row, samples x[0] (base) and x[1]; see .h. */
struct compare_table *
sweeper_table(const char *benchmark, const char *metric, const char *unit,
    enum compare_dir dir, enum compare_stat stat, const char *params,
    const char *names[2], double *const x[2], const size_t n[2])
{
	struct compare_table *t;

	t = compare_table_new(benchmark, metric, unit, dir, stat);
	compare_table_add_column(t, names[0]);
	compare_table_add_column(t, names[1]);
	compare_table_add_row(t, params);
	compare_table_set_samples(t, 0, 0, x[0], n[0]);
	compare_table_set_samples(t, 0, 1, x[1], n[1]);
	compare_table_compute(t);
	return t;
}

/* Tests the new side of g against its base; an info event if worse. */
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
	if (g->dir == COMPARE_DIR_UNKNOWN) {
		k->unknown++;
		return 0;
	}
	compare_stat_parse(g->statistic, &stat);
	t = sweeper_table(g->key[SW_BENCHMARK], g->key[SW_METRIC], g->unit,
	    g->dir, stat, g->key[SW_PARAMS], (const char *[]){ "base", "new" },
	    g->x, g->n);
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
	struct sweeper_counts k = { 0, 0, 0 };
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
		"job %lld against job %lld: %d of %d metrics worse%s%.0d%s",
		name, (long long)job, (long long)base, k.worse, k.compared,
		k.unknown ? "; " : "", k.unknown,
		k.unknown ? " not judged (no declared direction)" : "") == -1)
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

/*
 * Checks the sweep's last job once it is done: change points in the
 * sweep's history, and the note of the comparison with the done job
 * before it.  Marks it checked.
 */
static void
sweeper_check(struct db *db, const struct db_sweep *w)
{
	char   *cause = NULL;
	int64_t base;

	if (w->last_job == 0 || w->last_job == w->checked_job ||
	    w->last_state == DB_QUEUED || w->last_state == DB_RUNNING)
		return;
	if (w->last_state == DB_DONE &&
	    ((base = sweeper_base(db, w, w->last_job, &cause)) == -1 ||
		(base != 0 &&
		    sweeper_compare(db, w->id, w->name, base, w->last_job,
			&cause) == -1) ||
		sweeper_detect(db, w, w->last_job, &cause) == -1)) {
		sweeper_warn(cause);
		return;
	}
	if (w->last_state == DB_FAILED)
		sweeper_notify(db, w, NULL, w->last_job);
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

/*
 * Pins the job's built kernels to their branches' commits now: 1 to queue
 * it, 0 if no commit is new since the last done job (*why says so), -1
 * with *why.
 */
static int
sweeper_commits(struct db *db, const struct db_sweep *w, struct job *job,
    char **why)
{
	struct db_job *last = NULL;
	char	      *cause = NULL;
	int64_t	       base;
	int	       rc;

	*why = NULL;
	if ((base = sweeper_base(db, w, INT64_MAX, &cause)) > 0)
		last = db_job_get(db, base, &cause);
	rc = base == -1 || (base > 0 && last == NULL)
	    ? -1
	    : sweeper_follow(job, last ? last->spec : NULL, &cause);
	if (rc == 0)
		*why = xasprintf("skipped: no new commit since job %lld",
		    (long long)base);
	else if (rc == -1)
		*why = xasprintf("not queued: %s", cause);
	free(cause);
	db_job_free(last);
	return rc;
}

/*
 * Whether the trees of the job's built kernels were fetched since the
 * sweep's slot: 1 yes, 0 not yet (the slot stays due and the next tick
 * asks again), -1 a fetch failed (*why says so).
 */
static int
sweeper_fetched(struct daemon *d, const struct db_sweep *w,
    const struct job *job, char **why)
{
	char  *cause = NULL;
	int    rc = 1;
	size_t i;

	*why = NULL;
	for (i = 0; i < job->nkernels && rc != -1; i++) {
		if (job->kernels[i].kind != JOB_KERNEL_BUILD)
			continue;
		switch (fetcher_poll(d->fetcher, job->kernels[i].git,
		    w->next_at, &cause)) {
		case FETCHER_BUSY:
			rc = 0;
			break;
		case FETCHER_FAILED:
			*why = xasprintf("not queued: %s", cause);
			free(cause);
			rc = -1;
			break;
		case FETCHER_READY:
			break;
		}
	}
	return rc;
}

/* Queues one due sweep, or skips it to its next slot. */
static void
sweeper_queue(struct daemon *d, struct db *db, const struct db_sweep *w,
    int64_t now)
{
	struct job *job;
	char	   *why, *json, *cause = NULL;
	int64_t	    next, id;
	int	    rc;

	next = db_sweep_next(w, now);
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
	if ((rc = sweeper_fetched(d, w, job, &why)) == 0) {
		job_free(job); /* a fetch under way: due still */
		return;
	}
	if (rc == -1 || (rc = sweeper_commits(db, w, job, &why)) != 1) {
		sweeper_pass(db, w, next, rc == 0 ? DB_INFO : DB_ERROR, why);
		free(why);
		job_free(job);
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
	for (i = 0; i < n; i++) {
		sweeper_check(db, &v[i]);
		sweeper_confirm_check(db, &v[i]);
	}
	db_sweep_list_free(v, n);
	if (db_sweep_due(db, now, &v, &n, &cause) == -1) {
		sweeper_warn(cause);
		return;
	}
	for (i = 0; i < n; i++)
		sweeper_queue(d, db, &v[i], now);
	db_sweep_list_free(v, n);
}
