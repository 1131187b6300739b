/*
 * Adaptive iterations (jobs/job.h), the worker's step after a run that
 * went well: once the run's group (job, machine, benchmark, params) has no
 * run of another kernel still to come in its round, each kernel's
 * measured iterations and the precision they reach are recorded (the
 * adaptive table), and unless every kernel is within the target, or max
 * is reached, the next round is queued: a run of every kernel in that
 * round's order, each adding the same iterations, so the kernels' counts
 * stay balanced.  Only each kernel's own samples are looked at, never a
 * difference between kernels: stopping on the comparison would bias it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/worker.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "report/compare.h"
#include "report/stats.h"

/* What one decision is about and what it found. */
struct adapt {
	const struct job_benchmark *b;
	const struct db_run	   *run;
	const struct plan_run	   *plan;
	const char		   *statistic;
	enum stats_test_kind	    kind;
	struct db_adapt_group	    g;
	double			   *precision; /* per kernel of g */
	bool			   *reached;
	int			    n;	  /* fewest iterations of a kernel */
	int			    next; /* iterations each kernel adds */
	bool			    all;  /* every kernel within the target */
	bool			    missing; /* a kernel has no run counting */
	bool			    done;
};

/* "hackbench groups=4", or "hackbench" without parameters (caller frees). */
static char *
adapt_group_name(const struct db_run *r)
{
	return xasprintf("%s%s%s", r->benchmark, *r->params ? " " : "",
	    r->params);
}

/* The statistic the job declares for the metric ("amean" if none). */
static const char *
adapt_statistic(const struct job_benchmark *b)
{
	size_t i;

	for (i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].name, b->adaptive.metric) == 0)
			return b->metrics[i].statistic;
	return "amean";
}

/* Each kernel's precision, whether it is within the target, and n. */
static void
adapt_measure(struct adapt *a)
{
	const struct job_adapt *ad = &a->b->adaptive;
	struct db_adapt_kernel *k;
	size_t			i;

	a->precision = xcalloc(a->g.n + 1, sizeof *a->precision);
	a->reached = xcalloc(a->g.n + 1, sizeof *a->reached);
	a->n = a->g.n > 0 ? a->g.v[0].iterations : 0;
	a->all = true;
	for (i = 0; i < a->g.n; i++) {
		k = &a->g.v[i];
		a->precision[i] = stats_precision(k->x, k->n, a->kind);
		a->reached[i] = k->iterations >= ad->min &&
		    stats_precision_reached(k->x, k->n, a->kind, ad->precision,
			0, SIZE_MAX);
		a->all &= a->reached[i];
		if (k->iterations < a->n)
			a->n = k->iterations;
	}
	a->done = a->all || a->n >= ad->max;
}

/*
 * The iterations each kernel adds in the next round: what the least
 * precise kernel needs if its half-width shrinks as 1/sqrt(n), at least a
 * round's worth, at most doubling, never past max.
 */
static int
adapt_next(const struct adapt *a, const struct job *job)
{
	int    base = plan_iterations(job, a->b), need = base, want;
	double p, t = a->b->adaptive.precision;
	size_t i;

	for (i = 0; i < a->g.n; i++) {
		p = a->precision[i];
		if (a->reached[i] || !isfinite(p))
			continue;
		want = (int)ceil(a->g.v[i].iterations * (p / t) * (p / t)) -
		    a->g.v[i].iterations;
		if (want > need)
			need = want;
	}
	if (need > a->n)
		need = a->n > base ? a->n : base;
	if (need > a->b->adaptive.max - a->n)
		need = a->b->adaptive.max - a->n;
	return need;
}

/* Records every kernel's row of the adaptive table. */
static int
adapt_record(struct worker_ctx *ctx, const struct adapt *a, char **cause)
{
	const struct job_adapt *ad = &a->b->adaptive;
	struct db_adapt		row;
	size_t			i;

	for (i = 0; i < a->g.n; i++) {
		row = (struct db_adapt){ .job = a->run->job,
			.machine = a->run->machine,
			.kernel = a->g.v[i].kernel,
			.benchmark = a->run->benchmark,
			.params = a->run->params,
			.metric = ad->metric,
			.statistic = a->statistic,
			.iterations = a->g.v[i].iterations,
			.precision = a->precision[i],
			.target = ad->precision,
			.min = ad->min,
			.max = ad->max,
			.reached = a->reached[i],
			.done = a->done };
		if (db_adapt_set(ctx->db, &row, cause) == -1)
			return -1;
	}
	return 0;
}

/* The id of the group's kernel called name, or 0. */
static int64_t
adapt_kernel_id(const struct adapt *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->g.n; i++)
		if (strcmp(a->g.v[i].name, name) == 0)
			return a->g.v[i].kernel;
	return 0;
}

/* Inserts the run of plan entry p, a kernel's run in the next round. */
static int
adapt_insert(struct worker_ctx *ctx, const struct adapt *a,
    const struct plan_run *p, char **cause)
{
	struct db_run r = *a->run;
	char	     *name;

	r.kernel = adapt_kernel_id(a, p->kernel);
	r.round = r.boot = p->round;
	r.position = p->position;
	r.iterations = a->next;
	r.warmups = p->warmups;
	if (r.kernel == 0) {
		name = adapt_group_name(a->run);
		*cause = xasprintf("adaptive iterations of %s: kernel \"%s\" "
				   "has no run that counts",
		    name, p->kernel);
		free(name);
		return -1;
	}
	return db_run_insert(ctx->db, &r, cause) == -1 ? -1 : 0;
}

/* Queues the next round of the group; returns how many runs, or -1. */
static int
adapt_queue(struct worker_ctx *ctx, const struct adapt *a, int round,
    char **cause)
{
	const struct plan_run *p;
	struct plan	       next;
	size_t		       i;
	int		       n = 0;

	if (plan_build_rounds(ctx->job, round, round + 1, &next, cause) == -1)
		return -1;
	for (i = 0; i < next.n && n != -1; i++) {
		p = &next.runs[i];
		if (p->benchmark_index != a->plan->benchmark_index ||
		    strcmp(p->machine, a->run->machine) != 0 ||
		    strcmp(p->params, a->run->params) != 0)
			continue;
		n = adapt_insert(ctx, a, p, cause) == -1 ? -1 : n + 1;
	}
	plan_free(&next);
	return n;
}

/* "base: 10 (±1.70%), patched: 10 (±2.40%)": each kernel's count. */
static char *
adapt_counts(const struct adapt *a)
{
	char  *s = xstrdup(""), *p, *next;
	size_t i;

	for (i = 0; i < a->g.n; i++) {
		p = isfinite(a->precision[i])
		    ? xasprintf("±%.2f%%", a->precision[i] * 100)
		    : xstrdup("no interval yet");
		next = xasprintf("%s%s%s: %d (%s)", s, i ? ", " : "",
		    a->g.v[i].name, a->g.v[i].iterations, p);
		free(p);
		free(s);
		s = next;
	}
	return s;
}

/* What was decided: the next round, the target reached, or why not. */
static char *
adapt_outcome(const struct adapt *a, int round)
{
	char *target = catalog_precision_text(a->b->adaptive.precision), *s;

	if (!a->done)
		s = xasprintf("target ±%s not reached: %d more per kernel in "
			      "round %d",
		    target, a->next, round);
	else if (a->missing)
		s = xasprintf(
		    "target ±%s not reached: stopped, a kernel of the "
		    "job has no run that counts",
		    target);
	else
		s = xasprintf("target ±%s %s", target,
		    a->all ? "reached" : "not reached within max");
	free(target);
	return s;
}

/* Says what was decided in the run's events: a warning if it stopped short. */
static void
adapt_event(struct worker_ctx *ctx, const struct adapt *a, int round)
{
	char *name = adapt_group_name(a->run), *counts = adapt_counts(a);
	char *outcome = adapt_outcome(a, round), *msg;

	msg = xasprintf("adaptive iterations of %s (%s %s): %s; %s", name,
	    a->b->adaptive.metric, a->statistic, counts, outcome);
	worker_event(ctx, a->run, a->done && !a->all ? DB_WARN : DB_INFO, msg);
	free(msg);
	free(outcome);
	free(counts);
	free(name);
}

/* Records the group's state and queues its next round when it needs one. */
static int
adapt_decide(struct worker_ctx *ctx, struct adapt *a, char **cause)
{
	int   round = a->g.last_round + 1, queued = 0;
	char *ignore = NULL, *name;

	adapt_measure(a);
	a->missing = a->g.n != ctx->job->nkernels;
	a->done |= a->missing;
	if (!a->done)
		a->next = adapt_next(a, ctx->job);
	if (db_begin(ctx->db, cause) == -1)
		return -1;
	if (adapt_record(ctx, a, cause) == -1 ||
	    (!a->done && (queued = adapt_queue(ctx, a, round, cause)) == -1)) {
		db_rollback(ctx->db, &ignore);
		free(ignore);
		return -1;
	}
	if (db_commit(ctx->db, cause) == -1)
		return -1;
	adapt_event(ctx, a, round);
	if (a->done || queued > 0)
		return 0;
	name = adapt_group_name(a->run);
	*cause = xasprintf("adaptive iterations of %s: round %d has no run of "
			   "the group",
	    name, round);
	free(name);
	return -1;
}

/* The adaptive step after run r (plan entry p) went well; see worker.h. */
void
worker_adapt(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p)
{
	struct adapt	  a = { .run = r, .plan = p };
	enum compare_stat stat = COMPARE_AMEAN;
	char		 *cause = NULL;

	if (ctx->job == NULL || p->benchmark_index >= ctx->job->nbenchmarks)
		return;
	a.b = &ctx->job->benchmarks[p->benchmark_index];
	if (a.b->adaptive.precision <= 0 || a.b->adaptive.metric == NULL)
		return;
	a.statistic = adapt_statistic(a.b);
	compare_stat_parse(a.statistic, &stat);
	a.kind = compare_stat_test(stat);
	if (db_adapt_group_get(ctx->db, r, a.b->adaptive.metric, &a.g,
		&cause) == 0 &&
	    a.g.pending == 0)
		adapt_decide(ctx, &a, &cause);
	if (cause != NULL)
		worker_event(ctx, r, DB_ERROR, cause);
	free(cause);
	free(a.precision);
	free(a.reached);
	db_adapt_group_clear(&a.g);
}
