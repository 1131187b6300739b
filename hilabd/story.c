/* The texts of the events that tell a job's story (see story.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metric.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/story.h"
#include "jobs/job.h"
#include "jobs/plan.h"

/* How many metrics a run's done event gives the mean of at most. */
#define STORY_METRICS 4

/* "s" unless n is 1: the plural of a count's word. */
static const char *
story_s(long long n)
{
	return n == 1 ? "" : "s";
}

/* The text of the event of a job planned. */
char *
story_planned(const struct job *job, size_t nruns)
{
	return xasprintf("planned: %zu run%s on %zu machine%s, %zu kernel%s, "
			 "%d round%s",
	    nruns, story_s((long long)nruns), job->nmachines,
	    story_s((long long)job->nmachines), job->nkernels,
	    story_s((long long)job->nkernels), job->rounds,
	    story_s(job->rounds));
}

/* The text of the event of a job that ends. */
char *
story_job_end(const struct db_job *dj, enum db_state end)
{
	char	    took[UNITS_STR_MAX] = "", *when, *s;
	const char *word = end == DB_CANCELLED ? "after" : "in";
	int	    n = 0, i;

	for (i = 0; i < DB_NSTATES; i++)
		n += dj->runs[i];
	if (dj->started_at > 0)
		units_format_elapsed(db_now_ms() - dj->started_at, took,
		    sizeof took);
	when = *took ? xasprintf(" %s %s", word, took) : xstrdup("");
	if (end == DB_FAILED)
		s = xasprintf("failed%s: %d run%s, %d failed", when, n,
		    story_s(n), dj->runs[DB_FAILED]);
	else if (end == DB_CANCELLED)
		s = xasprintf("cancelled%s: %d run%s, %d cancelled", when, n,
		    story_s(n), dj->runs[DB_CANCELLED]);
	else
		s = xasprintf("%s%s: %d run%s", db_state_name(end), when, n,
		    story_s(n));
	free(when);
	return s;
}

/* The release the run's facts show, or NULL (f owns it). */
static const char *
story_release(json_t *f)
{
	const char *rel =
	    json_string_value(json_object_get(f, "kernel.release"));

	return rel != NULL && *rel != '\0' ? rel : NULL;
}

/* The text of the event of a kernel booted. */
char *
story_booted(const char *kernel, int64_t took_ms, int boots, const char *facts)
{
	json_t	   *f = json_loads(facts ? facts : "{}", 0, NULL);
	const char *rel = story_release(f);
	char	    took[UNITS_STR_MAX], *tries, *s;

	tries = boots > 1 ? xasprintf(" (%d boots)", boots) : xstrdup("");
	s = xasprintf("kernel \"%s\" booted in %s%s%s%s", kernel,
	    units_format_elapsed(took_ms, took, sizeof took), tries,
	    rel ? ": " : "", rel ? rel : "");
	free(tries);
	json_decref(f);
	return s;
}

/* The text of the event of a benchmark's tool made ready on its host. */
char *
story_installed(const struct job_benchmark *b, const char *path,
    int64_t took_ms, bool installed)
{
	const char *what =
	    b->install.package ? b->install.package : b->install.source;
	char took[UNITS_STR_MAX];

	if (what == NULL)
		return xasprintf("benchmark \"%s\": already on the host: %s",
		    b->name, path ? path : b->argv[0]);
	if (installed)
		return xasprintf("benchmark \"%s\": %s installed in %s: %s",
		    b->name, what,
		    units_format_elapsed(took_ms, took, sizeof took),
		    path ? path : b->argv[0]);
	return xasprintf("benchmark \"%s\": %s already installed: %s", b->name,
	    what, path ? path : b->argv[0]);
}

/* The text of the event of a run that starts. */
char *
story_started(const struct plan_run *p, const struct db_run *r,
    const char *facts)
{
	json_t	   *f = json_loads(facts ? facts : "{}", 0, NULL);
	const char *rel = story_release(f);
	char	   *s;

	s = xasprintf("started: %s%s%s (kernel \"%s\"%s%s, round %d): %d "
		      "iteration%s + %d warmup%s",
	    p->benchmark, *p->params ? " " : "", p->params, p->kernel,
	    rel ? " " : "", rel ? rel : "", p->round, r->iterations,
	    story_s(r->iterations), p->warmups, story_s(p->warmups));
	json_decref(f);
	return s;
}

/*
 * The place among b's metrics of the declaration of metric (its own name,
 * else the first pattern matching it), or b->nmetrics when undeclared.
 */
static size_t
story_decl(const struct job_benchmark *b, const char *metric)
{
	size_t i, best = b->nmetrics;
	int    m;

	for (i = 0; i < b->nmetrics; i++) {
		m = metric_declares(b->metrics[i].name, metric);
		if (m == 2)
			return i;
		if (m == 1 && best == b->nmetrics)
			best = i;
	}
	return best;
}

/* Sorts v (by name) by declaration, names in order within one. */
static void
story_sort(const struct job_benchmark *b, struct db_mean *v, size_t n)
{
	struct db_mean x;
	size_t	       i, j, d;

	for (i = 1; i < n; i++) {
		x = v[i];
		d = story_decl(b, x.metric);
		for (j = i; j > 0 && story_decl(b, v[j - 1].metric) > d; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Appends "; time: mean 0.412 s (n=30)" for mean m to *s. */
static void
story_mean(char **s, const struct job_benchmark *b, const struct db_mean *m)
{
	size_t	    d = story_decl(b, m->metric);
	const char *unit = d < b->nmetrics && b->metrics[d].unit != NULL
	    ? b->metrics[d].unit
	    : "";
	char	   *t;

	t = xasprintf("%s; %s: mean %.6g%s%s (n=%lld)", *s, m->metric, m->mean,
	    *unit ? " " : "", unit, (long long)m->n);
	free(*s);
	*s = t;
}

/* The means of the run's first metrics, each "; name: mean ..." . */
static char *
story_means(struct db *db, int64_t run, const struct job_benchmark *b)
{
	struct db_mean *v;
	char	       *s = xstrdup(""), *t, *cause = NULL;
	size_t		n, i;

	if (db_run_means(db, run, &v, &n, &cause) == -1) {
		free(cause);
		return s;
	}
	story_sort(b, v, n);
	for (i = 0; i < n && i < STORY_METRICS; i++)
		story_mean(&s, b, &v[i]);
	if (n > STORY_METRICS) {
		t = xasprintf("%s; %zu more metric%s", s, n - STORY_METRICS,
		    story_s((long long)(n - STORY_METRICS)));
		free(s);
		s = t;
	}
	db_means_free(v, n);
	return s;
}

/* The text of the event of a run that is done. */
char *
story_done(struct db *db, int64_t run, const struct job_benchmark *b)
{
	struct db_run *r;
	char	      *cause = NULL, *means, *s, took[UNITS_STR_MAX];
	int64_t	       ms;

	if ((r = db_run_get(db, run, &cause)) == NULL) {
		free(cause);
		return xstrdup("done");
	}
	ms = r->started_at > 0 ? db_now_ms() - r->started_at : 0;
	means = story_means(db, run, b);
	s = xasprintf("done in %s: %d iteration%s + %d warmup%s%s",
	    units_format_elapsed(ms, took, sizeof took), r->iterations,
	    story_s(r->iterations), r->warmups, story_s(r->warmups), means);
	free(means);
	db_run_free(r);
	return s;
}
