/*
 * Confirmation of a suspected change: an interleaved A/B job on the
 * series' machine of the last good point (kernel "good": the kernel and
 * the benchmark definition of the change's before_job) against the suspect
 * (kernel "suspect", of its job), alternating for the sweep's
 * confirm_rounds rounds, the series' parameters alone.  Where the two
 * definitions are the same the job has one benchmark that runs under both
 * kernels; else each definition runs under its own kernel.  Once the job
 * ends, the metric's test between the two sides decides the change.
 */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/sweeper.h"
#include "report/changepoint.h"
#include "report/compare.h"
#include "report/stats.h"

/* The side names, as kernel names of the A/B job. */
static const char *const confirm_sides[2] = { "good", "suspect" };

/* The spec of a job as JSON; see hilabd/sweeper.h. */
json_t *
sweeper_spec_of(struct db *db, int64_t id, char **cause)
{
	struct db_job *j;
	json_error_t   err;
	json_t	      *o;

	if ((j = db_job_get(db, id, cause)) == NULL)
		return NULL;
	if ((o = json_loads(j->spec, 0, &err)) == NULL)
		*cause =
		    xasprintf("job %lld: spec: %s", (long long)id, err.text);
	db_job_free(j);
	return o;
}

/* The benchmark named name in spec; see hilabd/sweeper.h. */
json_t *
sweeper_benchmark_of(json_t *spec, const char *name)
{
	json_t *b;
	size_t	i;

	json_array_foreach(json_object_get(spec, "benchmarks"), i,
	    b) if (strcmp(json_string_value(json_object_get(b, "name")),
		       name) == 0) return b;
	return NULL;
}

/* Pins b's parameters to params; see hilabd/sweeper.h. */
void
sweeper_pin(json_t *b, const char *params)
{
	json_t *o = json_object();
	char   *dup = xstrdup(params), *p, *eq, *save = NULL;

	for (p = strtok_r(dup, ",", &save); p != NULL;
	     p = strtok_r(NULL, ",", &save))
		if ((eq = strchr(p, '=')) != NULL) {
			*eq = '\0';
			json_object_set_new(o, p, json_pack("[s]", eq + 1));
		}
	json_object_set_new(b, "params", o);
	json_object_del(b, "adaptive");
	free(dup);
}

/* A copy of the first kernel of spec, renamed (NULL if none). */
static json_t *
confirm_kernel(json_t *spec, const char *name)
{
	json_t *k = json_array_get(json_object_get(spec, "kernels"), 0);

	if (k == NULL)
		return NULL;
	k = json_deep_copy(k);
	json_object_set_new(k, "name", json_string(name));
	return k;
}

/* The benchmarks of the A/B job: one shared definition, or one a side. */
static json_t *
confirm_benchmarks(json_t *bg, json_t *bs, const char *params)
{
	json_t *g = json_deep_copy(bg), *s = json_deep_copy(bs);

	sweeper_pin(g, params);
	sweeper_pin(s, params);
	if (json_equal(g, s)) {
		json_decref(g);
		return json_pack("[o]", s);
	}
	json_object_set_new(g, "kernel", json_string(confirm_sides[0]));
	json_object_set_new(s, "kernel", json_string(confirm_sides[1]));
	return json_pack("[o, o]", g, s);
}

/* The A/B job's spec from the two jobs' specs; NULL with *cause. */
static char *
confirm_build(const struct db_sweep *w, const struct db_sweep_change *c,
    json_t *good, json_t *bad, char **cause)
{
	json_t *bg = sweeper_benchmark_of(good, c->benchmark);
	json_t *bs = sweeper_benchmark_of(bad, c->benchmark);
	json_t *kg = confirm_kernel(good, confirm_sides[0]);
	json_t *ks = confirm_kernel(bad, confirm_sides[1]);
	json_t *o;
	char   *text;

	if (bg == NULL || bs == NULL || kg == NULL || ks == NULL) {
		json_decref(kg);
		json_decref(ks);
		*cause = xasprintf("benchmark \"%s\" or a kernel is missing "
				   "from job %lld or %lld",
		    c->benchmark, (long long)c->before_job, (long long)c->job);
		return NULL;
	}
	o = json_deep_copy(bad);
	json_object_set_new(o, "name",
	    json_sprintf("%s-confirm-%lld", w->name, (long long)c->id));
	json_object_set_new(o, "description",
	    json_sprintf("A/B confirmation of sweep \"%s\": job %lld "
			 "(suspect) against job %lld (good)",
		w->name, (long long)c->job, (long long)c->before_job));
	json_object_set_new(o, "machines", json_pack("[s]", c->machine));
	json_object_set_new(o, "kernels", json_pack("[o, o]", kg, ks));
	json_object_set_new(o, "benchmarks",
	    confirm_benchmarks(bg, bs, c->params));
	json_object_set_new(o, "rounds", json_integer(w->confirm_rounds));
	json_object_set_new(o, "order", json_string("alternate"));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/* Queues the A/B job of c and marks c confirming; its id or -1. */
static int64_t
confirm_queue(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, char **cause)
{
	json_t *good = NULL, *bad = NULL;
	char   *spec = NULL, *name = NULL;
	int64_t id = -1;

	if ((good = sweeper_spec_of(db, c->before_job, cause)) == NULL ||
	    (bad = sweeper_spec_of(db, c->job, cause)) == NULL ||
	    (spec = confirm_build(w, c, good, bad, cause)) == NULL)
		goto out;
	name = xasprintf("%s-confirm-%lld", w->name, (long long)c->id);
	if ((id = db_job_insert(db, name, NULL, spec, cause)) != -1 &&
	    db_sweep_change_confirming(db, c->id, id, cause) == -1)
		id = -1;
out:
	json_decref(good);
	json_decref(bad);
	free(spec);
	free(name);
	return id;
}

/* Queues the confirmation of a suspected change; see hilabd/sweeper.h. */
void
sweeper_suspected(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c)
{
	char   *cause = NULL;
	int64_t id;

	if (c->before_job == 0 ||
	    (id = confirm_queue(db, w, c, &cause)) == -1) {
		log_warn("sweeper",
		    "sweep \"%s\": change %lld: not confirmed: %s", w->name,
		    (long long)c->id, cause ? cause : "no good job");
		free(cause);
		return;
	}
	log_info("sweeper",
	    "sweep \"%s\": suspected %s: confirming as job %lld", w->name,
	    c->verdict, (long long)id);
	if (db_sweep_event_add(db, w->id, id, DB_INFO, &cause,
		"sweep \"%s\": suspected %s of %s %s on %s from job %lld on: "
		"confirming as job %lld (%d rounds of job %lld against it)",
		w->name, c->verdict, c->benchmark, c->metric, c->machine,
		(long long)c->job, (long long)id, w->confirm_rounds,
		(long long)c->before_job) == -1) {
		log_warn("sweeper", "%s", cause);
		free(cause);
	}
}

/* The samples of one side of the A/B job while they are read. */
struct confirm_gather {
	const struct db_sweep_change *c;
	double			     *x[2];
	size_t			      n[2];
	char			     *unit;
	char			     *statistic;
	enum compare_dir	      dir;
};

/* Adds a sample of the change's series to its side (a db_sample_cb). */
static void
confirm_sample_cb(const struct db_job_sample *x, void *arg)
{
	struct confirm_gather *g = arg;
	int		       side;

	if (strcmp(x->params, g->c->params) != 0 ||
	    strcmp(x->machine, g->c->machine) != 0)
		return;
	for (side = 0; side < 2 && strcmp(x->kernel, confirm_sides[side]);
	     side++)
		;
	if (side == 2)
		return;
	if (g->unit == NULL) {
		g->unit = xstrdup(x->unit);
		g->statistic = xstrdup(x->statistic);
		g->dir = compare_dir_parse(x->direction);
	}
	g->x[side] = xreallocarray(g->x[side], g->n[side] + 1, sizeof(double));
	g->x[side][g->n[side]++] = x->value;
}

/*
 * The verdict of the A/B test: "confirmed" or "rejected".  The A/B job
 * must reproduce the change: significant, in the suspected direction and
 * at least half the suspected size (a 1% difference found where the series
 * moved by 200% is noise between two alike sides, not the change).
 */
static const char *
confirm_verdict(const struct db_sweep_change *c, const struct compare_cell *s)
{
	bool   worse = strcmp(c->verdict, "regression") == 0;
	double least =
	    fmax(changepoint_defaults.min_effect_pct, fabs(c->effect_pct) / 2);

	if (!s->test.done || !(s->test.p < STATS_ALPHA) || isnan(s->pct_imp) ||
	    !(fabs(s->delta) >= least))
		return "rejected";
	return (worse ? s->pct_imp < 0 : s->pct_imp > 0) ? "confirmed"
							 : "rejected";
}

/*
 * Tests the A/B job's sides and stores the decision in the database and
 * in *c (state, confirm_p, confirm_effect_pct); 0 or -1.
 */
static int
confirm_decide(struct db *db, const struct db_sweep *w,
    struct db_sweep_change *c, const char **state, char **cause)
{
	struct confirm_gather	   g = { .c = c };
	struct compare_table	  *t;
	const struct compare_cell *s;
	enum compare_stat	   stat = COMPARE_AMEAN;
	int			   rc = -1, d;

	if (db_samples_of_jobs(db, &c->confirm_job, 1, c->benchmark, c->metric,
		confirm_sample_cb, &g, cause) == -1)
		goto out;
	if (g.unit != NULL)
		compare_stat_parse(g.statistic, &stat);
	t = sweeper_table(c->benchmark, c->metric, g.unit ? g.unit : "", g.dir,
	    stat, c->params, (const char **)confirm_sides, g.x, g.n);
	s = compare_table_cell(t, 0, 1);
	*state = confirm_verdict(c, s);
	d = compare_table_decimals(t);
	c->confirm_p = s->test.done ? s->test.p : 1;
	c->confirm_effect_pct = s->delta;
	rc = db_sweep_change_decide(db, c->id, *state, c->confirm_p,
	    c->confirm_effect_pct, cause);
	if (rc == 0)
		rc = db_sweep_event_add(db, w->id, c->confirm_job,
		    strcmp(*state, "confirmed") == 0 &&
			    strcmp(c->verdict, "regression") == 0
			? DB_WARN
			: DB_INFO,
		    cause,
		    "sweep \"%s\": %s %s: %s %s%s%s on %s: good %.*f, "
		    "suspect %.*f%s%s (%+.1f%%, p=%.2g, %zu+%zu samples) in "
		    "job %lld",
		    w->name, *state, c->verdict, c->benchmark, c->metric,
		    *c->params ? " " : "", c->params, c->machine, d,
		    compare_table_cell(t, 0, 0)->value, d, s->value,
		    g.unit && *g.unit ? " " : "", g.unit ? g.unit : "",
		    s->delta, s->test.done ? s->test.p : 1.0, g.n[0], g.n[1],
		    (long long)c->confirm_job);
	compare_table_free(t);
out:
	free(g.x[0]);
	free(g.x[1]);
	free(g.unit);
	free(g.statistic);
	return rc;
}

/* Marks c failed: its A/B job ended state; 0 or -1. */
static int
confirm_failed(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, enum db_state state, char **cause)
{
	if (db_sweep_change_decide(db, c->id, "failed", 0, 0, cause) == -1)
		return -1;
	return db_sweep_event_add(db, w->id, c->confirm_job, DB_ERROR, cause,
	    "sweep \"%s\": suspected %s of %s %s on %s not confirmed: job "
	    "%lld %s",
	    w->name, c->verdict, c->benchmark, c->metric, c->machine,
	    (long long)c->confirm_job, db_state_name(state));
}

/* Decides c if its A/B job ended; 0 or -1 with *cause. */
static int
confirm_check_one(struct db *db, const struct db_sweep *w,
    struct db_sweep_change *c, char **cause)
{
	struct db_job *j;
	enum db_state  state;
	const char    *verdict = NULL;
	int	       rc = 0;

	if ((j = db_job_get(db, c->confirm_job, cause)) == NULL)
		return -1;
	state = j->state;
	db_job_free(j);
	if (state == DB_QUEUED || state == DB_RUNNING)
		return 0;
	if (state != DB_DONE)
		return confirm_failed(db, w, c, state, cause);
	if ((rc = confirm_decide(db, w, c, &verdict, cause)) == 0 &&
	    strcmp(verdict, "confirmed") == 0 &&
	    strcmp(c->verdict, "regression") == 0) {
		free(c->state);
		c->state = xstrdup(verdict);
		sweeper_notify(db, w, c, c->confirm_job);
		sweeper_bisect(db, w, c);
	}
	return rc;
}

/* Decides the sweep's confirming changes; see hilabd/sweeper.h. */
void
sweeper_confirm_check(struct db *db, const struct db_sweep *w)
{
	struct db_sweep_change *v;
	char		       *cause = NULL;
	size_t			n, i;

	if (db_sweep_changes(db, w->id, &v, &n, &cause) == -1) {
		log_warn("sweeper", "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].state, "confirming") != 0 ||
		    confirm_check_one(db, w, &v[i], &cause) == 0)
			continue;
		log_warn("sweeper", "sweep \"%s\": change %lld: %s", w->name,
		    (long long)v[i].id, cause);
		free(cause);
		cause = NULL;
	}
	db_sweep_change_list_free(v, n);
}
