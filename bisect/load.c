/*
 * A stored bisection read back (bisect/load.h).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/load.h"
#include "common/xmalloc.h"
#include "db/db.h"

/* What one step job's samples are read into. */
struct load_gather {
	const struct db_bisect *b;
	struct bisect_loaded   *l;
	size_t			commit; /* the step's: 0 for the ends alone */
	size_t			job;	/* the step's number, 1 first */
	size_t			count;	/* samples of commit */
	char			names[3][13]; /* good, commit, bad */
};

void
bisect_short(const char *commit, char out[13])
{
	snprintf(out, 13, "%s", commit);
}

/* The strings of a JSON array into a new vector; its length into *n. */
static char **
load_strings(const char *text, size_t *n, char **cause)
{
	json_t *a = json_loads(text, 0, NULL), *v;
	char  **out;
	size_t	i;

	if (!json_is_array(a) || json_array_size(a) < 2) {
		json_decref(a);
		*cause = xstrdup("its commit list is not a JSON array of two "
				 "or more");
		return NULL;
	}
	*n = json_array_size(a);
	out = xcalloc(*n, sizeof *out);
	json_array_foreach(a, i, v) out[i] =
	    xstrdup(json_is_string(v) ? json_string_value(v) : "");
	json_decref(a);
	return out;
}

/* The commit of a step job's kernel name: 0, the step's, n; or -1. */
static long
load_commit_of(const struct load_gather *g, const char *kernel)
{
	if (strcmp(kernel, g->names[0]) == 0)
		return 0;
	if (strcmp(kernel, g->names[1]) == 0)
		return (long)g->commit;
	if (strcmp(kernel, g->names[2]) == 0)
		return (long)g->l->n;
	return -1;
}

/* Adds a sample of one of the step's kernels (a db_sample_cb). */
static void
load_sample_cb(const struct db_job_sample *x, void *arg)
{
	struct load_gather *g = arg;
	long		    c = load_commit_of(g, x->kernel);

	if (c < 0 || strcmp(x->params, g->b->params) != 0 ||
	    strcmp(x->machine, g->b->machine) != 0)
		return;
	if (g->l->unit == NULL) {
		g->l->unit = xstrdup(x->unit);
		g->l->direction = xstrdup(x->direction);
	}
	bisect_search_add(g->l->search, (size_t)c, g->job, x->value);
	if (g->commit == 0 || (size_t)c == g->commit)
		g->count++;
}

/* The id of the kernel named name in job, 0 if none, -1 on error. */
static int64_t
load_kernel_id(struct db *db, int64_t job, const char *name, char **cause)
{
	struct db_job_kernel *k;
	size_t		      n, i;
	int64_t		      id = 0;

	if (db_job_kernels(db, job, &k, &n, cause) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(k[i].kernel.name, name) == 0)
			id = k[i].kernel.id;
	db_job_kernels_free(k, n);
	return id;
}

/*
 * Whether the step's commit is to blame for its failed job: the job was
 * never planned (a build failed: the ends built before) or the commit's
 * kernel did not boot (for a step of the ends alone: either end's).  1,
 * 0, or -1 with *cause.
 */
static int
load_commit_failed(struct db *db, const struct db_job *j,
    const struct load_gather *g, char **cause)
{
	int64_t kernel = 0, boot;

	if (db_job_runs(j) == 0)
		return 1;
	if (g->commit != 0 &&
	    (kernel = load_kernel_id(db, j->id, g->names[1], cause)) <= 0)
		return kernel == -1 ? -1 : 0;
	boot = db_run_boot_failed(db, j->id, kernel, NULL, cause);
	return boot == -1 ? -1 : boot > 0;
}

/*
 * A step that ended without a sample of its commit: cancelled, done with
 * nothing (the job measures something else), the commit's fault (skipped;
 * for the ends' own step, the bisection's end), or a stray (its machine
 * went away, the benchmark failed), measured again.  0 or -1.
 */
static int
load_empty(struct db *db, const struct db_job *j, const struct load_gather *g,
    char **cause)
{
	struct bisect_loaded *l = g->l;
	int		      blame = 0;

	if (j->state == DB_CANCELLED)
		l->cancelled_job = j->id;
	else if (j->state == DB_DONE)
		l->empty_job = j->id;
	else if ((blame = load_commit_failed(db, j, g, cause)) == -1)
		return -1;
	else if (blame && g->commit == 0)
		l->end_job = j->id;
	else if (blame)
		bisect_search_skip(l->search, g->commit);
	else {
		l->stray_job = j->id;
		l->stray_commit = g->commit;
		l->strays++;
	}
	return 0;
}

/* Samples a step job of the template spec adds: its iterations + 2. */
static size_t
load_step_samples(const char *spec)
{
	json_t *o = json_loads(spec, 0, NULL);
	json_t *it =
	    json_object_get(json_array_get(json_object_get(o, "benchmarks"), 0),
		"iterations");
	size_t n = json_is_integer(it) && json_integer_value(it) > 0
	    ? (size_t)json_integer_value(it)
	    : 3;

	json_decref(o);
	return n + 2;
}

/* Reads one step (the index-th): its samples, or what its end means. */
static int
load_step(struct db *db, const struct db_bisect *b,
    const struct db_bisect_step *s, size_t index, struct bisect_loaded *l,
    char **cause)
{
	struct load_gather g = { b, l, (size_t)s->commit, index + 1, 0,
		{ "", "", "" } };
	struct db_job	  *j;
	int		   rc = -1;

	if (s->commit < 0 || (size_t)s->commit >= l->n) {
		*cause = xasprintf("step job %lld: commit %lld out of range",
		    (long long)s->job, (long long)s->commit);
		return -1;
	}
	bisect_short(l->commits[0], g.names[0]);
	bisect_short(l->commits[s->commit], g.names[1]);
	bisect_short(l->commits[l->n], g.names[2]);
	if ((j = db_job_get(db, s->job, cause)) == NULL)
		return -1;
	l->last_job = s->job;
	if (j->state == DB_QUEUED || j->state == DB_RUNNING)
		rc = 0; /* nothing to read yet */
	else if (db_samples_of_jobs(db, &s->job, 1, b->benchmark, b->metric,
		     load_sample_cb, &g, cause) == 0) {
		rc = 0;
		if (g.count == 0)
			rc = load_empty(db, j, &g, cause);
	}
	db_job_free(j);
	return rc;
}

/* Frees a vector of n strings. */
static void
load_strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

int
bisect_load(struct db *db, const struct db_bisect *b, struct bisect_loaded *l,
    char **cause)
{
	struct db_bisect_step *s = NULL;
	struct bisect_params   p;
	size_t		       ns = 0, nc = 0, nsub = 0, i;
	char		     **sub;
	char		      *why;
	int		       rc = -1;

	memset(l, 0, sizeof *l);
	if ((l->commits = load_strings(b->commits, &nc, cause)) == NULL)
		goto out;
	l->n = nc - 1;
	if ((sub = load_strings(b->subjects, &nsub, cause)) == NULL)
		goto out;
	if (nsub != nc) {
		load_strings_free(sub, nsub);
		*cause = xstrdup("its commits and subjects differ in number");
		goto out;
	}
	l->subjects = sub;
	bisect_params_default(&p);
	p.budget = (size_t)b->budget;
	p.confidence = b->confidence;
	p.step_samples = load_step_samples(b->spec);
	l->search = bisect_search_new(l->n, &p);
	if (db_bisect_steps(db, b->id, &s, &ns, cause) == -1)
		goto out;
	for (i = 0; i < ns; i++)
		if (load_step(db, b, &s[i], i, l, cause) == -1)
			goto out;
	rc = 0;
out:
	free(s);
	if (rc == -1) {
		why = *cause;
		*cause = xasprintf("bisection %lld: %s", (long long)b->id, why);
		free(why);
		bisect_loaded_clear(l);
	}
	return rc;
}

void
bisect_loaded_clear(struct bisect_loaded *l)
{
	bisect_search_free(l->search);
	if (l->commits != NULL) {
		load_strings_free(l->commits, l->n + 1);
		load_strings_free(l->subjects, l->n + 1);
	}
	free(l->unit);
	free(l->direction);
	memset(l, 0, sizeof *l);
}
