/*
 * The report's section of what probes and monitors saw, one block per
 * column (per kernel, usually): for each benchmark and parameter set, each
 * probe and monitor figure as its table's statistic over the iterations,
 * with n and CV (a counter that stayed 0 left out), and the probe's
 * calibration, so a kernel's figures read together ("patched: 30% fewer
 * migrations").  The numbers are those of the tables above it
 * (report/select.h), already computed.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/compare.h"
#include "report/report_text.h"
#include "report/select.h"

/* Whether a table holds a probe's or a monitor's figures. */
static bool
report_observed(const struct compare_table *t)
{
	return t->metric != NULL &&
	    (strncmp(t->metric, "probe.", 6) == 0 ||
		strncmp(t->metric, "mon.", 4) == 0);
}

/* The index of column name in t, or -1. */
static long
report_column(const struct compare_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncolumns; i++)
		if (strcmp(t->columns[i], name) == 0)
			return (long)i;
	return -1;
}

/* One line per row of t with a cell in column col. */
static void
report_observed_rows(FILE *fp, const struct compare_table *t, long col)
{
	const struct compare_cell *c;
	size_t			   i;

	for (i = 0; i < t->nrows; i++) {
		c = &t->rows[i].cells[col];
		if (c->n == 0 || (c->sum.min == 0 && c->sum.max == 0))
			continue; /* nothing, or a counter that never moved */
		fprintf(fp, "    %s %s, %s: %.6g %s (n=%zu, ", t->title,
		    t->rows[i].name, t->metric, c->value,
		    t->unit != NULL ? t->unit : "", c->n);
		if (isfinite(c->sum.cv))
			fprintf(fp, "CV %.1f%%)\n", c->sum.cv);
		else
			fputs("CV n/a)\n", fp);
	}
}

/* The block of one column: every observed table's figures in it. */
static void
report_observed_column(FILE *fp, const struct select_result *r,
    const char *name)
{
	const struct compare_table *t;
	size_t			    i, j;
	long			    col;

	fprintf(fp, "  %s\n", name);
	for (i = 0; i < r->n; i++) {
		t = r->v[i].table;
		if (!report_observed(t) || (col = report_column(t, name)) < 0)
			continue;
		report_observed_rows(fp, t, col);
		for (j = 0; j < t->nnotes; j++)
			if (strncmp(t->notes[j], name, strlen(name)) == 0 &&
			    t->notes[j][strlen(name)] == ':')
				fprintf(fp, "      (%s)\n", t->notes[j]);
	}
}

/* Whether an earlier observed table than r->v[upto] has column name. */
static bool
report_seen(const struct select_result *r, size_t upto, const char *name)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (report_observed(r->v[i].table) &&
		    report_column(r->v[i].table, name) >= 0)
			return true;
	return false;
}

void
report_observed_print(FILE *fp, const struct select_result *r)
{
	const struct compare_table *t;
	size_t			    i, k;
	bool			    any = false;

	for (i = 0; i < r->n; i++) {
		t = r->v[i].table;
		if (!report_observed(t))
			continue;
		if (!any)
			fprintf(fp,
			    "\nInside the kernel (probes and monitors, "
			    "per %s)\n",
			    select_by_name(r->by));
		any = true;
		for (k = 0; k < t->ncolumns; k++)
			if (!report_seen(r, i, t->columns[k]) &&
			    report_column(t, t->columns[k]) == (long)k)
				report_observed_column(fp, r, t->columns[k]);
	}
}
