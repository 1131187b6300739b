/*
 * What stands under a table whose benchmark has adaptive iterations: per
 * parameter set, the measured iterations behind each column, the
 * precision they reached (the 95% CI half-width of the metric's
 * statistic, relative to it) and whether that met the target, from the
 * adaptive table (db_adapt_of_jobs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "report/compare.h"
#include "report/select_int.h"

/* Keeps one adaptive row (a db_adapt_cb). */
static void
select_adapt_cb(const struct db_adapt *a, void *arg)
{
	struct sel_gather *g = arg;
	struct sel_adapt  *s;

	g->adapt = xreallocarray(g->adapt, g->nadapt + 1, sizeof *g->adapt);
	s = &g->adapt[g->nadapt++];
	s->job = a->job;
	s->machine = xstrdup(a->machine);
	s->kernel = xstrdup(a->kernel_name);
	s->benchmark = xstrdup(a->benchmark);
	s->params = xstrdup(a->params);
	s->metric = xstrdup(a->metric);
	s->statistic = xstrdup(a->statistic);
	s->iterations = a->iterations;
	s->precision = a->precision;
	s->target = a->target;
	s->reached = a->reached;
	s->done = a->done;
}

/* Reads the adaptive rows of the jobs into g. */
int
select_adapt_gather(struct db *db, const int64_t *jobs, size_t njobs,
    struct sel_gather *g, char **cause)
{
	return db_adapt_of_jobs(db, jobs, njobs, select_adapt_cb, g, cause);
}

/* Frees the adaptive rows of g. */
void
select_adapt_free(struct sel_gather *g)
{
	struct sel_adapt *s;
	size_t		  i;

	for (i = 0; i < g->nadapt; i++) {
		s = &g->adapt[i];
		free(s->machine);
		free(s->kernel);
		free(s->benchmark);
		free(s->params);
		free(s->metric);
		free(s->statistic);
	}
	free(g->adapt);
	g->adapt = NULL;
	g->nadapt = 0;
}

/* Whether row s stands behind the column called col. */
static bool
select_adapt_column(const struct sel_adapt *s, enum select_by by,
    const char *col)
{
	char *job;
	bool  same;

	if (by == SELECT_BY_KERNEL)
		return strcmp(s->kernel, col) == 0;
	if (by == SELECT_BY_MACHINE)
		return strcmp(s->machine, col) == 0;
	job = xasprintf("job %lld", (long long)s->job);
	same = strcmp(job, col) == 0;
	free(job);
	return same;
}

/* "base: 15 (±1.42%)", with what was not reached; appended to *text. */
static void
select_adapt_cell(char **text, const char *col, const struct sel_adapt *s)
{
	char *p, *next;

	p = isfinite(s->precision) ? xasprintf("±%.2f%%", s->precision * 100)
				   : xstrdup("no interval");
	next = xasprintf("%s%s%s: %d (%s%s)", *text, **text ? ", " : "", col,
	    s->iterations, p,
	    s->reached	  ? ""
		: s->done ? ", not reached"
			  : ", still running");
	free(p);
	free(*text);
	*text = next;
}

/* Adds the note of benchmark's params under t when it has adaptive rows. */
void
select_adapt_note(const struct sel_gather *g, const struct sel_table *tg,
    const char *params, const char *label, struct compare_table *t)
{
	const struct sel_adapt *s, *first = NULL;
	char		       *cells = xstrdup(""), *target;
	size_t			c, i;

	for (c = 0; c < tg->ncols; c++)
		for (i = 0; i < g->nadapt; i++) {
			s = &g->adapt[i];
			if (strcmp(s->benchmark, tg->benchmark) != 0 ||
			    strcmp(s->params, params) != 0 ||
			    (tg->machine != NULL &&
				strcmp(s->machine, tg->machine) != 0) ||
			    !select_adapt_column(s, g->by, tg->cols[c]))
				continue;
			first = first != NULL ? first : s;
			select_adapt_cell(&cells, tg->cols[c], s);
			break;
		}
	if (first != NULL) {
		target = catalog_precision_text(first->target);
		compare_table_add_note(t,
		    "adaptive iterations%s%s on %s (%s, target ±%s): %s",
		    label ? " of " : "", label ? label : "", first->metric,
		    first->statistic, target, cells);
		free(target);
	}
	free(cells);
}
