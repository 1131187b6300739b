/*
 * What probe and monitor samples change in comparison tables: monitor
 * deltas ("mon.*") only when asked for, the probe's method kept out of the
 * tables and, on each table of probe figures, a note of the method and of
 * its empty-probe calibration per column, so its overhead is stated
 * wherever its figures are.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/select_int.h"
#include "report/stats.h"

#define SEL_METHOD   "probe.method."
#define SEL_CALIB    "probe.calibration."
#define SEL_EMPTY    SEL_CALIB "empty_ns"
#define SEL_OVERHEAD SEL_CALIB "overhead_ns"

/* Whether s starts with prefix. */
static bool
sel_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
select_probe_skip(struct sel_gather *g, const char *benchmark,
    const char *metric)
{
	char *m;

	if (sel_prefix(metric, SEL_METHOD)) {
		m = xasprintf("%s\t%s", benchmark, metric + strlen(SEL_METHOD));
		select_set_add(&g->methods, m);
		free(m);
		return true;
	}
	if (g->only != NULL)
		return strcmp(metric, g->only) != 0 &&
		    !sel_prefix(metric, SEL_CALIB);
	return !g->monitors && sel_prefix(metric, "mon.");
}

const char *
select_probe_metric(struct sel_gather *g, const char *metric)
{
	if (metric != NULL && sel_prefix(metric, "mon."))
		g->monitors = true; /* asked for by name */
	if (metric == NULL || !sel_prefix(metric, "probe."))
		return metric;
	g->only = metric;
	return NULL;
}

bool
select_probe_hidden(const struct sel_gather *g, const struct sel_table *t)
{
	return g->only != NULL && strcmp(t->metric, g->only) != 0;
}

bool
select_probe_kept(const struct sel_table *t)
{
	return sel_prefix(t->metric, SEL_CALIB);
}

/* 0 for a benchmark's own metric, 1 for a probe's, 2 for a monitor's. */
static int
sel_probe_rank(const struct sel_table *t)
{
	return sel_prefix(t->metric, "mon.")  ? 2
	    : sel_prefix(t->metric, "probe.") ? 1
					      : 0;
}

void
select_probe_order(struct sel_gather *g)
{
	struct sel_table t;
	size_t		 i, j;

	for (i = 1; i < g->n; i++) {
		t = g->v[i];
		for (j = i;
		     j > 0 && strcmp(g->v[j - 1].benchmark, t.benchmark) == 0 &&
		     sel_probe_rank(&g->v[j - 1]) > sel_probe_rank(&t);
		     j--)
			g->v[j] = g->v[j - 1];
		g->v[j] = t;
	}
}

/* The gathered table of metric for benchmark (and machine), or NULL. */
static const struct sel_table *
sel_probe_find(const struct sel_gather *g, const struct compare_table *t,
    const char *metric)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (strcmp(g->v[i].benchmark, t->title) == 0 &&
		    strcmp(g->v[i].metric, metric) == 0 &&
		    (g->v[i].machine == NULL ||
			(t->machine != NULL &&
			    strcmp(g->v[i].machine, t->machine) == 0)))
			return &g->v[i];
	return NULL;
}

/* The median of every sample of column col of s; -1 without any. */
static double
sel_probe_median(const struct sel_table *s, const char *col)
{
	struct stats_summary sum;
	double		    *x = NULL;
	size_t		     i, n = 0;
	long		     c = select_find(s->cols, s->ncols, col);

	for (i = 0; c >= 0 && i < s->ncells; i++) {
		if (s->cells[i].col != (size_t)c)
			continue;
		x = xreallocarray(x, n + s->cells[i].n + 1, sizeof *x);
		memcpy(x + n, s->cells[i].x, s->cells[i].n * sizeof *x);
		n += s->cells[i].n;
	}
	if (n == 0) {
		free(x);
		return -1;
	}
	stats_summarize(x, n, &sum);
	free(x);
	return sum.median;
}

/* The methods that measured benchmark's probes, "a, b" (caller frees). */
static char *
sel_probe_methods(const struct sel_gather *g, const char *benchmark)
{
	struct select_set s = { 0 };
	size_t		  i, len = strlen(benchmark);
	char		 *text;

	for (i = 0; i < g->methods.n; i++)
		if (strncmp(g->methods.v[i], benchmark, len) == 0 &&
		    g->methods.v[i][len] == '\t')
			select_set_add(&s, g->methods.v[i] + len + 1);
	text = select_set_text(&s, "");
	select_set_clear(&s);
	return text;
}

/* Notes the method and each column's calibration on a probe table. */
static void
sel_probe_note(const struct sel_gather *g, struct compare_table *t)
{
	const struct sel_table *e = sel_probe_find(g, t, SEL_EMPTY);
	const struct sel_table *o = sel_probe_find(g, t, SEL_OVERHEAD);
	char		       *methods = sel_probe_methods(g, t->title);
	size_t			i;

	compare_table_add_note(t,
	    "probe: %s; its cost per call (empty-probe calibration, median "
	    "of the iterations) is below",
	    *methods ? methods : "method unknown");
	free(methods);
	for (i = 0; e != NULL && o != NULL && i < t->ncolumns; i++)
		compare_table_add_note(t,
		    "%s: a call of an empty function reads %.0f ns; recording "
		    "adds %.0f ns to each call",
		    t->columns[i], sel_probe_median(e, t->columns[i]),
		    sel_probe_median(o, t->columns[i]));
	if (e == NULL || o == NULL)
		compare_table_add_note(t, "no calibration was measured");
}

void
select_probe_notes(const struct sel_gather *g, struct select_result *r)
{
	struct compare_table *t;
	size_t		      i;

	for (i = 0; i < r->n; i++) {
		t = r->v[i].table;
		if (t->metric != NULL && sel_prefix(t->metric, "probe.") &&
		    !sel_prefix(t->metric, SEL_CALIB))
			sel_probe_note(g, t);
	}
}
