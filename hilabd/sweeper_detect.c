/*
 * The sweeper's change point check: every series (machine, benchmark,
 * params, metric) of a sweep's done jobs becomes one point per job, the
 * metric's statistic of the job's samples that count, and the detector of
 * report/changepoint.h looks at the points since the series' last change.
 * Each change it finds is stored as suspected (sweep_changes) and logged:
 * a regression as a warn event, an improvement as an info event.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/sweeper.h"
#include "report/changepoint.h"
#include "report/compare.h"

/* The done jobs looked at: enough for a full window and then some. */
#define DETECT_JOBS 200

/* The key fields of a series. */
enum { SD_MACHINE, SD_BENCHMARK, SD_PARAMS, SD_METRIC, SD_NKEY };

/* One point of a series: a job's samples. */
struct detect_point {
	int64_t job;
	double *x;
	size_t	n;
};

/* One series with its points in job order. */
struct detect_series {
	char		    *key[SD_NKEY];
	char		    *unit;
	enum compare_dir     dir;
	enum compare_stat    stat;
	struct detect_point *v;
	size_t		     n;
};

/* Every series while the samples are read. */
struct detect_gather {
	struct detect_series *v;
	size_t		      n;
};

/* What a check found, for its info event. */
struct detect_counts {
	int series;
	int regressions;
	int improvements;
	int unknown; /* series without a declared direction */
};

/* The key fields of a sample, in enum order. */
static void
detect_key(const struct db_job_sample *x, const char *key[SD_NKEY])
{
	key[SD_MACHINE] = x->machine;
	key[SD_BENCHMARK] = x->benchmark;
	key[SD_PARAMS] = x->params;
	key[SD_METRIC] = x->metric;
}

/* A new series for the sample's key. */
static struct detect_series *
detect_series_add(struct detect_gather *w, const struct db_job_sample *x,
    const char *key[SD_NKEY])
{
	struct detect_series *s;
	int		      k;

	w->v = xreallocarray(w->v, w->n + 1, sizeof *w->v);
	s = &w->v[w->n++];
	memset(s, 0, sizeof *s);
	for (k = 0; k < SD_NKEY; k++)
		s->key[k] = xstrdup(key[k]);
	s->unit = xstrdup(x->unit);
	s->dir = compare_dir_parse(x->direction);
	s->stat = COMPARE_AMEAN;
	compare_stat_parse(x->statistic, &s->stat);
	return s;
}

/* The series of the sample's key, added if new. */
static struct detect_series *
detect_series(struct detect_gather *w, const struct db_job_sample *x)
{
	const char *key[SD_NKEY];
	size_t	    i;
	int	    k;

	detect_key(x, key);
	for (i = w->n; i > 0; i--) {
		for (k = 0;
		     k < SD_NKEY && strcmp(w->v[i - 1].key[k], key[k]) == 0;
		     k++)
			;
		if (k == SD_NKEY)
			return &w->v[i - 1];
	}
	return detect_series_add(w, x, key);
}

/* Adds a sample to its series' point of its job (a db_sample_cb). */
static void
detect_sample_cb(const struct db_job_sample *x, void *arg)
{
	struct detect_series *s = detect_series(arg, x);
	struct detect_point  *p = s->n ? &s->v[s->n - 1] : NULL;

	if (compare_dir_parse(x->direction) != s->dir ||
	    strcmp(x->unit, s->unit) != 0)
		s->dir = COMPARE_DIR_UNKNOWN; /* jobs declare it differently */
	if (p == NULL || p->job != x->job) {
		s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
		p = &s->v[s->n++];
		memset(p, 0, sizeof *p);
		p->job = x->job;
	}
	p->x = xreallocarray(p->x, p->n + 1, sizeof *p->x);
	p->x[p->n++] = x->value;
}

/* Frees every series of w. */
static void
detect_gather_clear(struct detect_gather *w)
{
	size_t i, j;
	int    k;

	for (i = 0; i < w->n; i++) {
		for (k = 0; k < SD_NKEY; k++)
			free(w->v[i].key[k]);
		for (j = 0; j < w->v[i].n; j++)
			free(w->v[i].v[j].x);
		free(w->v[i].v);
		free(w->v[i].unit);
	}
	free(w->v);
}

/* The ids of the sweep's done jobs up to job, oldest first. */
static int
detect_jobs(struct db *db, int64_t sweep, int64_t job, int64_t **ids, size_t *n,
    char **cause)
{
	struct db_job *v;
	size_t	       nv, i;

	if (db_sweep_jobs(db, sweep, &v, &nv, cause) == -1)
		return -1;
	*ids = xcalloc(nv ? nv : 1, sizeof **ids);
	*n = 0;
	for (i = nv; i > 0; i--)
		if (v[i - 1].id <= job && v[i - 1].state == DB_DONE)
			(*ids)[(*n)++] = v[i - 1].id;
	if (*n > DETECT_JOBS) {
		memmove(*ids, *ids + *n - DETECT_JOBS,
		    DETECT_JOBS * sizeof **ids);
		*n = DETECT_JOBS;
	}
	db_job_list_free(v, nv);
	return 0;
}

/* Orders series by machine, benchmark, params, metric. */
static int
detect_series_cmp(const void *a, const void *b)
{
	const struct detect_series *sa = a, *sb = b;
	int			    k, d;

	for (k = 0; k < SD_NKEY; k++)
		if ((d = strcmp(sa->key[k], sb->key[k])) != 0)
			return d;
	return 0;
}

/* Reads the sweep's series up to job into w, in key order. */
static int
detect_read(struct db *db, int64_t sweep, int64_t job, struct detect_gather *w,
    char **cause)
{
	int64_t *ids;
	size_t	 n;
	int	 rc;

	if (detect_jobs(db, sweep, job, &ids, &n, cause) == -1)
		return -1;
	rc = db_samples_of_jobs(db, ids, n, NULL, NULL, detect_sample_cb, w,
	    cause);
	free(ids);
	if (rc == 0 && w->n > 1)
		qsort(w->v, w->n, sizeof *w->v, detect_series_cmp);
	return rc;
}

/* The statistic of each point of s from index from on (caller frees). */
static double *
detect_values(const struct detect_series *s, size_t from)
{
	struct stats_summary sum;
	double		    *y = xcalloc(s->n - from + 1, sizeof *y);
	size_t		     i;

	for (i = from; i < s->n; i++) {
		stats_summarize(s->v[i].x, s->v[i].n, &sum);
		y[i - from] = compare_stat_value(s->stat, &sum);
	}
	return y;
}

/* "hackbench time groups=4 on epyc". */
static char *
detect_label(const struct detect_series *s)
{
	return xasprintf("%s %s%s%s on %s", s->key[SD_BENCHMARK],
	    s->key[SD_METRIC], *s->key[SD_PARAMS] ? " " : "", s->key[SD_PARAMS],
	    s->key[SD_MACHINE]);
}

/* Stores change c of series s and logs it; 0 or -1 with *cause. */
static int
detect_report(struct db *db, const struct db_sweep *w, int64_t found,
    const struct detect_series *s, struct db_sweep_change *c, char **cause)
{
	bool  worse = strcmp(c->verdict, "regression") == 0;
	char *label;
	int   d = compare_decimals(c->before < c->after ? c->before : c->after);
	int   rc;

	c->sweep = w->id;
	c->machine = s->key[SD_MACHINE];
	c->benchmark = s->key[SD_BENCHMARK];
	c->params = s->key[SD_PARAMS];
	c->metric = s->key[SD_METRIC];
	c->found_job = found;
	if ((c->id = db_sweep_change_add(db, c, cause)) == -1)
		return -1;
	label = detect_label(s);
	rc = db_sweep_event_add(db, w->id, found, worse ? DB_WARN : DB_INFO,
	    cause,
	    "sweep \"%s\": suspected %s: %s: %.*f -> %.*f%s%s (%+.1f%%, %s, "
	    "p=%.2g) from job %lld on (after job %lld)",
	    w->name, c->verdict, label, d, c->before, d, c->after,
	    *s->unit ? " " : "", s->unit, c->effect_pct,
	    worse ? "worse" : "better", c->p, (long long)c->job,
	    (long long)c->before_job);
	free(label);
	if (rc == 0)
		sweeper_suspected(db, w, c);
	return rc;
}

/* The index of the first point of s at or after job (s->n if none). */
static size_t
detect_from(const struct detect_series *s, int64_t job)
{
	size_t i;

	for (i = 0; i < s->n && s->v[i].job < job; i++)
		;
	return i;
}

/*
 * Runs the detector on s from its last change on, again after each
 * change it finds; counts them into k.
 */
static int
detect_series_check(struct db *db, const struct db_sweep *w, int64_t found,
    const struct detect_series *s, struct detect_counts *k, char **cause)
{
	struct db_sweep_change c;
	struct changepoint     cp;
	int64_t		       last;
	size_t		       from;
	double		      *y;
	bool		       hit;

	if ((last = db_sweep_change_last(db, w->id, s->key[SD_MACHINE],
		 s->key[SD_BENCHMARK], s->key[SD_PARAMS], s->key[SD_METRIC],
		 cause)) == -1)
		return -1;
	for (from = detect_from(s, last);; from += cp.index) {
		y = detect_values(s, from);
		hit = changepoint_find(y, s->n - from, s->dir,
		    &changepoint_defaults, &cp);
		free(y);
		if (!hit)
			return 0;
		memset(&c, 0, sizeof c);
		c.job = s->v[from + cp.index].job;
		c.before_job = s->v[from + cp.index - 1].job;
		c.before = cp.before;
		c.after = cp.after;
		c.effect_pct = cp.effect_pct;
		c.p = cp.p;
		c.verdict = (char *)changepoint_verdict_name(cp.verdict);
		if (detect_report(db, w, found, s, &c, cause) == -1)
			return -1;
		cp.verdict == CHANGEPOINT_REGRESSION ? k->regressions++
						     : k->improvements++;
	}
}

/* Checks the sweep's series up to job; see hilabd/sweeper.h. */
int
sweeper_detect(struct db *db, const struct db_sweep *w, int64_t job,
    char **cause)
{
	struct detect_gather g = { NULL, 0 };
	struct detect_counts k = { 0, 0, 0, 0 };
	size_t		     i;
	int		     rc = -1;

	if (detect_read(db, w->id, job, &g, cause) == -1)
		goto out;
	for (i = 0; i < g.n; i++) {
		if (g.v[i].dir == COMPARE_DIR_UNKNOWN) {
			k.unknown++;
			continue;
		}
		k.series++;
		if (detect_series_check(db, w, job, &g.v[i], &k, cause) == -1)
			goto out;
	}
	if (db_sweep_event_add(db, w->id, job, DB_INFO, cause,
		"sweep \"%s\": job %lld: %d series checked for change "
		"points: %d suspected regression%s, %d improvement%s%s%.0d%s",
		w->name, (long long)job, k.series, k.regressions,
		k.regressions == 1 ? "" : "s", k.improvements,
		k.improvements == 1 ? "" : "s", k.unknown ? "; " : "",
		k.unknown,
		k.unknown ? " not judged (no declared direction)" : "") == -1)
		goto out;
	rc = k.regressions;
out:
	detect_gather_clear(&g);
	return rc;
}
