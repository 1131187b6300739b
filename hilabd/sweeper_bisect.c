/*
 * A confirmed regression bisected (hilabd/sweeper.h): the kernels of the
 * change's two jobs, built from one git tree at two commits, give the
 * range; the suspect job, reduced to the series' machine, its kernel and
 * its benchmark pinned to the series' parameters, is the template of each
 * step.  The bisector (hilabd/bisector.c) does the rest and mails the
 * result through the sweep.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/range.h"
#include "bisect/template.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/sweeper.h"

/* The first kernel of spec if it is built from git, else NULL. */
static json_t *
bisect_built(json_t *spec)
{
	json_t	   *k = json_array_get(json_object_get(spec, "kernels"), 0);
	const char *kind = json_string_value(json_object_get(k, "kind"));

	if (kind == NULL || strcmp(kind, "build") != 0 ||
	    !json_is_string(json_object_get(k, "git")) ||
	    !json_is_string(json_object_get(k, "base")))
		return NULL;
	return k;
}

/* The template of the steps: the suspect's kernel and pinned benchmark. */
static char *
bisect_job_template(const struct db_sweep_change *c, json_t *spec, json_t *k,
    const char *tree)
{
	json_t *b = json_deep_copy(sweeper_benchmark_of(spec, c->benchmark));
	char   *text;

	sweeper_pin(b, c->params);
	text = bisect_template(spec, k, b, c->machine, tree);
	json_decref(b);
	return text;
}

/* Stores the bisection of c over r; its id, or -1 with *cause. */
static int64_t
bisect_add(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, const char *tree, char *spec,
    const struct bisect_range *r, char **cause)
{
	struct db_bisect b = { 0 };
	int64_t		 id;

	b.name = xasprintf("%s-bisect-%lld", w->name, (long long)c->id);
	b.spec = spec;
	b.machine = c->machine;
	b.benchmark = c->benchmark;
	b.metric = c->metric;
	b.params = c->params;
	b.tree = (char *)tree;
	b.commits = r->commits;
	b.subjects = r->subjects;
	b.budget = w->bisect_budget;
	b.confidence = 0.995;
	b.sweep = w->id;
	b.change = c->id;
	id = db_bisect_add(db, &b, cause);
	free(b.name);
	return id;
}

/* Starts the bisection of c; 0 with *id, or -1 with *cause. */
static int
bisect_start(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, int64_t *id, char **cause)
{
	json_t		   *good = NULL, *bad = NULL, *kg, *ks;
	struct bisect_range r = { 0 };
	const char	   *tree;
	char		   *spec = NULL;
	int		    rc = -1;

	if ((good = sweeper_spec_of(db, c->before_job, cause)) == NULL ||
	    (bad = sweeper_spec_of(db, c->job, cause)) == NULL)
		goto out;
	kg = bisect_built(good);
	ks = bisect_built(bad);
	tree = ks ? json_string_value(json_object_get(ks, "git")) : NULL;
	if (kg == NULL || ks == NULL ||
	    sweeper_benchmark_of(bad, c->benchmark) == NULL ||
	    strcmp(tree, json_string_value(json_object_get(kg, "git"))) != 0) {
		*cause = xasprintf("jobs %lld and %lld do not build their "
				   "kernel from one git tree",
		    (long long)c->before_job, (long long)c->job);
		goto out;
	}
	if (bisect_range_read(tree,
		json_string_value(json_object_get(kg, "base")),
		json_string_value(json_object_get(ks, "base")), &r,
		cause) == -1)
		goto out;
	spec = bisect_job_template(c, bad, ks, tree);
	if ((*id = bisect_add(db, w, c, tree, spec, &r, cause)) != -1)
		rc = 0;
out:
	bisect_range_clear(&r);
	free(spec);
	json_decref(good);
	json_decref(bad);
	return rc;
}

/* Bisects a confirmed regression; see hilabd/sweeper.h. */
void
sweeper_bisect(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c)
{
	char   *cause = NULL, *why = NULL;
	int64_t id = 0;

	if (w->bisect_budget <= 0)
		return;
	if (bisect_start(db, w, c, &id, &cause) == -1) {
		if (db_sweep_event_add(db, w->id, c->confirm_job, DB_WARN, &why,
			"sweep \"%s\": confirmed regression of %s %s on %s "
			"not bisected: %s",
			w->name, c->benchmark, c->metric, c->machine,
			cause) == -1)
			log_warn("sweeper", "%s", why);
		free(why);
		free(cause);
		return;
	}
	if (db_sweep_event_add(db, w->id, c->confirm_job, DB_INFO, &cause,
		"sweep \"%s\": bisecting the regression of %s %s on %s "
		"between jobs %lld and %lld as bisection %lld (budget %lld "
		"samples)",
		w->name, c->benchmark, c->metric, c->machine,
		(long long)c->before_job, (long long)c->job, (long long)id,
		(long long)w->bisect_budget) == -1) {
		log_warn("sweeper", "%s", cause);
		free(cause);
	}
}
