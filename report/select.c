/* Stored samples of chosen jobs gathered into comparison tables. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "report/compare.h"
#include "report/envdiff.h"
#include "report/select_int.h"

static const char *select_by_names[] = { "auto", "kernel", "machine", "job" };
static const char *select_rows_names[] = { "params", "metric", "auto" };

/* The name of a column choice; see select.h. */
const char *
select_by_name(enum select_by by)
{
	return select_by_names[by];
}

/* Parses a column choice's name: 0, or -1 for another name. */
int
select_by_parse(const char *s, enum select_by *by)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcmp(s, select_by_names[i]) == 0) {
			*by = (enum select_by)i;
			return 0;
		}
	}
	return -1;
}

/* The name of a row choice; see select.h. */
const char *
select_rows_name(enum select_rows rows)
{
	return select_rows_names[rows];
}

/* Parses a row choice's name: 0, or -1 for another name. */
int
select_rows_parse(const char *s, enum select_rows *rows)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		if (strcmp(s, select_rows_names[i]) == 0) {
			*rows = (enum select_rows)i;
			return 0;
		}
	}
	return -1;
}

/* The index of s in v, or -1; see select_int.h. */
long
select_find(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i], s) == 0)
			return (long)i;
	}
	return -1;
}

/* Returns the index of s in v, appending it if new. */
static size_t
sel_index(char ***v, size_t *n, const char *s)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*v)[i], s) == 0)
			return i;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[*n] = xstrdup(s);
	return (*n)++;
}

/* A metric's meaning as text: "lower is better, unit \"s\", amean". */
static char *
sel_meaning(const char *direction, const char *unit, const char *statistic)
{
	return xasprintf("%s%s, unit \"%s\", %s",
	    *direction ? direction : "unknown",
	    *direction ? " is better" : " direction", unit, statistic);
}

/* Notes the first sample whose job means its metric unlike the table. */
static void
sel_conflict(struct sel_gather *g, const struct sel_table *t,
    const struct db_job_sample *x)
{
	char *a, *b;

	if (g->conflict != NULL ||
	    (strcmp(t->unit, x->unit) == 0 &&
		strcmp(t->direction, x->direction) == 0 &&
		strcmp(t->statistic, x->statistic) == 0))
		return;
	a = sel_meaning(t->direction, t->unit, t->statistic);
	b = sel_meaning(x->direction, x->unit, x->statistic);
	g->conflict = xasprintf("%s %s: the jobs declare it differently (%s; "
				"job %lld: %s); compare them apart",
	    t->benchmark, t->metric, a, (long long)x->job, b);
	free(a);
	free(b);
}

/* The table of the sample's (benchmark, metric[, machine]), added if new. */
static struct sel_table *
sel_table(struct sel_gather *g, const struct db_job_sample *x)
{
	struct sel_table *t;
	size_t		  i;

	for (i = 0; i < g->n; i++) {
		t = &g->v[i];
		if (strcmp(t->benchmark, x->benchmark) == 0 &&
		    strcmp(t->metric, x->metric) == 0 &&
		    (t->machine == NULL ||
			strcmp(t->machine, x->machine) == 0)) {
			sel_conflict(g, t, x);
			return t;
		}
	}
	g->v = xreallocarray(g->v, g->n + 1, sizeof *g->v);
	t = &g->v[g->n++];
	memset(t, 0, sizeof *t);
	t->benchmark = xstrdup(x->benchmark);
	t->metric = xstrdup(x->metric);
	t->machine = g->split ? xstrdup(x->machine) : NULL;
	t->unit = xstrdup(x->unit);
	t->direction = xstrdup(x->direction);
	t->statistic = xstrdup(x->statistic);
	t->label = x->label != NULL ? xstrdup(x->label) : NULL;
	t->position = x->position;
	return t;
}

/* The cell (row, col) of a table, added if new. */
static struct sel_cell *
sel_cell(struct sel_table *t, size_t row, size_t col)
{
	struct sel_cell *c;
	size_t		 i;

	for (i = 0; i < t->ncells; i++) {
		if (t->cells[i].row == row && t->cells[i].col == col)
			return &t->cells[i];
	}
	t->cells = xreallocarray(t->cells, t->ncells + 1, sizeof *t->cells);
	c = &t->cells[t->ncells++];
	memset(c, 0, sizeof *c);
	c->row = row;
	c->col = col;
	c->last_run = -1;
	return c;
}

/* The index of a cell's (machine, boot), added if new. */
static size_t
sel_boot(struct sel_cell *c, const char *machine, long long boot)
{
	struct sel_boot *b;
	size_t		 i;

	for (i = 0; i < c->nboots; i++) {
		if (c->boots[i].boot == boot &&
		    strcmp(c->boots[i].machine, machine) == 0)
			return i;
	}
	c->boots = xreallocarray(c->boots, c->nboots + 1, sizeof *c->boots);
	b = &c->boots[c->nboots];
	memset(b, 0, sizeof *b);
	b->machine = xstrdup(machine);
	b->boot = boot;
	return c->nboots++;
}

/* Returns a new run behind (row, col), or NULL if the table has it. */
static struct sel_run *
sel_run_new(struct sel_table *t, long long id, size_t row, size_t col)
{
	struct sel_run *r;
	size_t		i;

	/* Newest first: a run's samples come one after another. */
	for (i = t->nruns; i-- > 0;) {
		if (t->runs[i].id == id && t->runs[i].col == col &&
		    t->runs[i].row == row)
			return NULL;
	}
	t->runs = xreallocarray(t->runs, t->nruns + 1, sizeof *t->runs);
	r = &t->runs[t->nruns++];
	memset(r, 0, sizeof *r);
	r->id = id;
	r->row = row;
	r->col = col;
	return r;
}

/* Records the run behind a cell once per table. */
static void
sel_run_add(struct sel_table *t, size_t row, size_t col,
    const struct db_job_sample *x)
{
	struct sel_run *r;

	if ((r = sel_run_new(t, x->run, row, col)) == NULL)
		return;
	r->facts = x->facts != NULL ? xstrdup(x->facts) : NULL;
	r->asked = x->cmdline != NULL ? xstrdup(x->cmdline) : NULL;
}

/* The label of a sample's column. */
static char *
sel_column(const struct db_job_sample *x, enum select_by by)
{
	if (by == SELECT_BY_KERNEL)
		return xstrdup(x->kernel);
	if (by == SELECT_BY_MACHINE)
		return xstrdup(x->machine);
	return xasprintf("job %lld", (long long)x->job);
}

/*
 * Finds (adding them if new) the table, cell and boot of the first sample
 * of a run's metric, and what the cell comes from, into g->last.
 */
static void
sel_place(struct sel_gather *g, const struct db_job_sample *x)
{
	struct sel_last	 *l = &g->last;
	struct sel_table *t;
	struct sel_cell	 *c;
	char		 *colname;
	size_t		  row, col;

	l->run = x->run;
	free(l->metric);
	l->metric = xstrdup(x->metric);
	if ((l->skip = select_probe_skip(g, x->benchmark, x->metric)))
		return;
	t = sel_table(g, x);
	colname = sel_column(x, g->by);
	row = sel_index(&t->rows, &t->nrows, x->params);
	col = sel_index(&t->cols, &t->ncols, colname);
	free(colname);
	c = sel_cell(t, row, col);
	select_set_add(&c->who[SEL_WHO_MACHINE], x->machine);
	select_set_add(&c->who[SEL_WHO_KERNEL], x->kernel);
	colname = xasprintf("job %lld", (long long)x->job);
	select_set_add(&c->who[SEL_WHO_JOB], colname);
	free(colname);
	l->table = (size_t)(t - g->v);
	l->cell = (size_t)(c - t->cells);
	l->boot = sel_boot(c, x->machine, x->boot);
	if (c->last_run != x->run) {
		c->last_run = x->run;
		sel_run_add(t, row, col, x);
	}
}

/* Adds one sample that counts to its table (a db_sample_cb). */
static void
sel_sample_cb(const struct db_job_sample *x, void *arg)
{
	struct sel_gather *g = arg;
	struct sel_cell	  *c;
	struct sel_boot	  *b;

	if (g->last.run != x->run || strcmp(g->last.metric, x->metric) != 0)
		sel_place(g, x);
	if (g->last.skip)
		return;
	c = &g->v[g->last.table].cells[g->last.cell];
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->x = xreallocarray(c->x, c->cap, sizeof *c->x);
	}
	c->x[c->n++] = x->value;
	b = &c->boots[g->last.boot];
	b->sum += x->value;
	b->n++;
}

/* Frees what a gathered table holds. */
static void
sel_table_free(struct sel_table *t)
{
	size_t i, j;

	for (i = 0; i < t->nrows; i++) {
		free(t->rows[i]);
		if (t->labels != NULL)
			free(t->labels[i]);
	}
	for (i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	for (i = 0; i < t->ncells; i++) {
		for (j = 0; j < t->cells[i].nboots; j++)
			free(t->cells[i].boots[j].machine);
		for (j = 0; j < SEL_NWHO; j++)
			select_set_clear(&t->cells[i].who[j]);
		free(t->cells[i].boots);
		free(t->cells[i].x);
	}
	for (i = 0; i < t->nruns; i++) {
		free(t->runs[i].facts);
		free(t->runs[i].asked);
	}
	free(t->rows);
	free(t->labels);
	free(t->cols);
	free(t->cells);
	free(t->runs);
	free(t->benchmark);
	free(t->metric);
	free(t->machine);
	free(t->unit);
	free(t->direction);
	free(t->statistic);
	free(t->label);
}

/* The selected jobs as the db's ids (caller frees). */
static int64_t *
sel_jobs(const struct select_query *q)
{
	int64_t *v = xcalloc(q->njobs + 1, sizeof *v);
	size_t	 i;

	for (i = 0; i < q->njobs; i++)
		v[i] = q->jobs[i];
	return v;
}

/*
 * The query's columns (for auto: kernels if several, else machines, else
 * jobs), whether the selection spans several machines, and whether each
 * machine gets tables of its own (kernel columns, unless --pool).
 */
static int
sel_auto_by(struct db *db, const struct select_query *q, const int64_t *jobs,
    struct sel_gather *g, char **cause)
{
	int kernels, machines;

	if (db_jobs_count(db, jobs, q->njobs, &kernels, &machines, cause) == -1)
		return -1;
	g->by = q->by != SELECT_BY_AUTO ? q->by
	    : kernels > 1		? SELECT_BY_KERNEL
	    : machines > 1		? SELECT_BY_MACHINE
					: SELECT_BY_JOB;
	g->several = machines > 1;
	g->split = g->several && g->by == SELECT_BY_KERNEL && !q->pool;
	return 0;
}

/* The value of key in canonical params; see select.h. */
char *
select_param(const char *params, const char *key)
{
	size_t	    klen = strlen(key);
	const char *p = params, *end;

	while (*p != '\0') {
		end = p + strcspn(p, ",");
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return xstrndup(p + klen + 1, end - p - klen - 1);
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* Returns 1 if key has the same value (or is missing alike) in all rows. */
static int
sel_key_constant(char **rows, size_t nrows, const char *key)
{
	char  *v0 = select_param(rows[0], key), *v;
	size_t i;
	int    same = v0 != NULL;

	for (i = 1; i < nrows && same; i++) {
		v = select_param(rows[i], key);
		same = v != NULL && strcmp(v, v0) == 0;
		free(v);
	}
	free(v0);
	return same;
}

/* The one parameter of the first row whose value changes, or NULL. */
static char *
sel_swept_key(char **rows, size_t nrows)
{
	char	   *key = NULL, *k;
	const char *p;
	size_t	    len;

	if (nrows < 2)
		return NULL;
	for (p = rows[0]; *p != '\0'; p += len + (p[len] != '\0')) {
		len = strcspn(p, ",");
		k = xstrndup(p, strcspn(p, "="));
		if (sel_key_constant(rows, nrows, k)) {
			free(k);
			continue;
		}
		if (key != NULL) {
			free(k);
			free(key);
			return NULL;
		}
		key = k;
	}
	return key;
}

/* The environment notes of a table's columns. */
static void
sel_envdiff(const struct sel_table *g, enum select_by by,
    struct compare_table *t)
{
	struct envdiff *e;
	char	       *cause = NULL;
	size_t		i;

	e = envdiff_new(by == SELECT_BY_KERNEL ? ENVDIFF_KERNELS
		: by == SELECT_BY_MACHINE      ? ENVDIFF_MACHINES
					       : ENVDIFF_JOBS);
	for (i = 0; i < g->nruns; i++) {
		if (g->runs[i].facts == NULL)
			continue;
		if (envdiff_add(e, g->cols[g->runs[i].col], g->runs[i].facts,
			g->runs[i].asked, &cause) == -1) {
			compare_table_add_note(t, "run %lld: %s", g->runs[i].id,
			    cause);
			free(cause);
			cause = NULL;
		}
	}
	envdiff_apply(e, t);
	envdiff_free(e);
}

/*
 * Fills the cells of a table: samples and per-boot means.  The samples
 * move to the table unless they are read again after it is built.
 */
static void
sel_fill(struct sel_table *g, struct compare_table *t)
{
	struct sel_cell *c;
	double		*means;
	size_t		 i, j;

	for (i = 0; i < g->ncells; i++) {
		c = &g->cells[i];
		if (select_probe_kept(g))
			compare_table_set_samples(t, c->row, c->col, c->x,
			    c->n);
		else {
			compare_table_take_samples(t, c->row, c->col, c->x,
			    c->n);
			c->x = NULL;
			c->cap = 0;
		}
		means = xcalloc(c->nboots, sizeof *means);
		for (j = 0; j < c->nboots; j++)
			means[j] = c->boots[j].sum / (double)c->boots[j].n;
		compare_table_set_boots(t, c->row, c->col, means, c->nboots);
		free(means);
	}
}

/*
 * Completes a table: samples, machines, pooling and environment notes,
 * the chosen base column first, computed.
 */
static void
sel_finish(struct sel_table *g, const struct select_query *q,
    const struct sel_gather *all, struct compare_table *t)
{
	sel_fill(g, t);
	select_describe(g, all->by, all->several, t);
	sel_envdiff(g, all->by, t);
	if (q->base != NULL)
		compare_table_set_base(t, q->base);
	compare_table_compute(t);
}

/* A new table of a gathered one: title, statistic, case label, columns. */
static struct compare_table *
sel_table_new(const struct sel_table *g, const struct select_query *q,
    const char *case_label)
{
	struct compare_table *t;
	enum compare_stat     stat = COMPARE_AMEAN;
	size_t		      i;

	compare_stat_parse(q->statistic ? q->statistic : g->statistic, &stat);
	t = compare_table_new(g->benchmark, g->metric, g->unit,
	    compare_dir_parse(g->direction), stat);
	if (g->machine != NULL)
		compare_table_set_machine(t, g->machine);
	compare_table_set_case_label(t, case_label);
	for (i = 0; i < g->ncols; i++)
		compare_table_add_column(t, g->cols[i]);
	return t;
}

/* Builds and computes the table of one gathered benchmark metric. */
static void
sel_build(struct sel_table *g, const struct select_query *q,
    const struct sel_gather *all, struct select_table *out)
{
	struct compare_table *t;
	char		     *label;
	size_t		      i;

	t = sel_table_new(g, q, "Case");
	out->swept = sel_swept_key(g->rows, g->nrows);
	out->params = xcalloc(g->nrows, sizeof *out->params);
	out->values = xcalloc(g->nrows, sizeof *out->values);
	for (i = 0; i < g->nrows; i++) {
		out->params[i] = xstrdup(g->rows[i]);
		if (out->swept != NULL)
			out->values[i] = select_param(g->rows[i], out->swept);
		label = out->values[i] != NULL
		    ? xasprintf("%s-%s", out->values[i], out->swept)
		    : xstrdup(*g->rows[i] ? g->rows[i] : "default");
		compare_table_add_row(t, label);
		select_adapt_note(all, g, g->rows[i],
		    g->nrows > 1 ? t->rows[i].name : NULL, t);
		free(label);
	}
	sel_finish(g, q, all, t);
	out->table = t;
}

/*
 * The tables of benchmark g->v[first] (first and later ones), in the order
 * the job lists their metrics; returns how many (caller frees *idx).
 */
static size_t
sel_benchmark_tables(const struct sel_gather *g, size_t first, size_t **idx)
{
	size_t i, j, n = 0, k;

	*idx = xcalloc(g->n, sizeof **idx);
	for (i = first; i < g->n; i++) {
		if (strcmp(g->v[i].benchmark, g->v[first].benchmark) != 0)
			continue;
		for (j = n;
		     j > 0 && g->v[(*idx)[j - 1]].position > g->v[i].position;
		     j--)
			;
		for (k = n; k > j; k--)
			(*idx)[k] = (*idx)[k - 1];
		(*idx)[j] = i;
		n++;
	}
	return n;
}

/* Whether benchmark g->v[first] gets metric rows under rows. */
static int
sel_metric_rows(const struct sel_gather *g, size_t first, enum select_rows rows)
{
	const struct sel_table *t;
	char		      **params = NULL;
	size_t		       *idx, n, i, j, nparams = 0;
	int			labelled = 0;

	if (rows != SELECT_ROWS_AUTO)
		return rows == SELECT_ROWS_METRIC;
	n = sel_benchmark_tables(g, first, &idx);
	for (i = 0; i < n; i++) {
		t = &g->v[idx[i]];
		labelled |= t->label != NULL;
		for (j = 0; j < t->nrows; j++)
			sel_index(&params, &nparams, t->rows[j]);
	}
	for (j = 0; j < nparams; j++)
		free(params[j]);
	free(params);
	free(idx);
	return labelled && n > 1 && nparams == 1;
}

/* Whether two metrics can share a table: unit, direction, statistic. */
static int
sel_same_kind(const struct sel_table *a, const struct sel_table *b,
    const struct select_query *q)
{
	return strcmp(a->unit, b->unit) == 0 &&
	    strcmp(a->direction, b->direction) == 0 &&
	    (q->statistic != NULL || strcmp(a->statistic, b->statistic) == 0);
}

/*
 * Copies a cell's samples and per-boot sums into cell (row, col) of m;
 * the cell's own samples go unless they are read again (kept).
 */
static void
sel_merge_cell(struct sel_table *m, size_t row, size_t col, struct sel_cell *c,
    int kept)
{
	struct sel_cell *mc = sel_cell(m, row, col);
	size_t		 i;

	mc->x = xreallocarray(mc->x, mc->n + c->n, sizeof *mc->x);
	memcpy(mc->x + mc->n, c->x, c->n * sizeof *c->x);
	mc->n += c->n;
	mc->cap = mc->n;
	if (!kept) {
		free(c->x);
		c->x = NULL;
		c->cap = 0;
	}
	mc->boots =
	    xreallocarray(mc->boots, mc->nboots + c->nboots, sizeof *mc->boots);
	for (i = 0; i < c->nboots; i++) {
		mc->boots[mc->nboots] = c->boots[i];
		mc->boots[mc->nboots++].machine = xstrdup(c->boots[i].machine);
	}
}

/* Adds row prow of metric table t to m as one row named by the metric. */
static void
sel_merge_add(struct sel_table *m, struct sel_table *t, size_t prow)
{
	const struct sel_run *r;
	struct sel_run	     *mr;
	size_t		      row = m->nrows, i, col;

	m->rows = xreallocarray(m->rows, m->nrows + 1, sizeof *m->rows);
	m->labels = xreallocarray(m->labels, m->nrows + 1, sizeof *m->labels);
	m->rows[row] = xstrdup(t->metric);
	m->labels[row] = t->label != NULL ? xstrdup(t->label) : NULL;
	m->nrows++;
	for (i = 0; i < t->ncells; i++) {
		if (t->cells[i].row != prow)
			continue;
		col = sel_index(&m->cols, &m->ncols, t->cols[t->cells[i].col]);
		sel_merge_cell(m, row, col, &t->cells[i], select_probe_kept(t));
	}
	for (i = 0; i < t->nruns; i++) {
		r = &t->runs[i];
		if (r->row != prow)
			continue;
		col = sel_index(&m->cols, &m->ncols, t->cols[r->col]);
		if ((mr = sel_run_new(m, r->id, 0, col)) == NULL)
			continue;
		mr->facts = r->facts != NULL ? xstrdup(r->facts) : NULL;
		mr->asked = r->asked != NULL ? xstrdup(r->asked) : NULL;
	}
}

/* Builds and computes a metric-rows table of parameter set params. */
static void
sel_build_metrics(struct sel_table *m, const struct select_query *q,
    const struct sel_gather *all, const char *params, struct select_table *out)
{
	struct compare_table *t;
	size_t		      i;
	int		      labelled = 0;

	for (i = 0; i < m->nrows; i++)
		labelled |= m->labels[i] != NULL;
	t = sel_table_new(m, q, labelled ? "operation" : "metric");
	out->params = xcalloc(m->nrows, sizeof *out->params);
	out->values = xcalloc(m->nrows, sizeof *out->values);
	out->metrics = xcalloc(m->nrows, sizeof *out->metrics);
	for (i = 0; i < m->nrows; i++) {
		out->params[i] = xstrdup(params);
		out->metrics[i] = xstrdup(m->rows[i]);
		compare_table_add_row(t,
		    m->labels[i] != NULL ? m->labels[i] : m->rows[i]);
	}
	select_adapt_note(all, m, params, NULL, t);
	sel_finish(m, q, all, t);
	out->table = t;
}

/* Appends a zeroed table to r and returns it. */
static struct select_table *
sel_result_add(struct select_result *r)
{
	r->v = xreallocarray(r->v, r->n + 1, sizeof *r->v);
	memset(&r->v[r->n], 0, sizeof r->v[r->n]);
	return &r->v[r->n++];
}

/*
 * Builds the metric-rows tables of parameter set params from the
 * benchmark's metric tables idx[0..n): each table holds the next unused
 * metric with those params and every later one of the same kind.
 */
static void
sel_build_params(const struct sel_gather *g, const size_t *idx, size_t n,
    const char *params, const struct select_query *q, struct select_result *r)
{
	const struct sel_table *a;
	struct sel_table	m, *b;
	char		       *used = xcalloc(n + 1, 1);
	size_t			i, j;

	for (i = 0; i < n; i++) {
		a = &g->v[idx[i]];
		if (used[i] || select_find(a->rows, a->nrows, params) == -1)
			continue;
		memset(&m, 0, sizeof m);
		m.benchmark = xstrdup(a->benchmark);
		m.metric = xstrdup(*params != '\0' ? params : "default");
		m.unit = xstrdup(a->unit);
		m.direction = xstrdup(a->direction);
		m.statistic = xstrdup(a->statistic);
		for (j = i; j < n; j++) {
			b = &g->v[idx[j]];
			if (used[j] || !sel_same_kind(a, b, q) ||
			    select_find(b->rows, b->nrows, params) == -1)
				continue;
			sel_merge_add(&m, b,
			    (size_t)select_find(b->rows, b->nrows, params));
			used[j] = 1;
		}
		sel_build_metrics(&m, q, g, params, sel_result_add(r));
		sel_table_free(&m);
	}
	free(used);
}

/*
 * Builds the metric-rows tables of benchmark g->v[first], one per
 * parameter set (and kind of metric), marking its metric tables done.
 */
static void
sel_build_benchmark(const struct sel_gather *g, size_t first, char *done,
    const struct select_query *q, struct select_result *r)
{
	char  **params = NULL;
	size_t *idx, n, i, j, nparams = 0;

	n = sel_benchmark_tables(g, first, &idx);
	for (i = 0; i < n; i++) {
		done[idx[i]] = 1;
		for (j = 0; j < g->v[idx[i]].nrows; j++)
			sel_index(&params, &nparams, g->v[idx[i]].rows[j]);
	}
	for (j = 0; j < nparams; j++) {
		sel_build_params(g, idx, n, params[j], q, r);
		free(params[j]);
	}
	free(params);
	free(idx);
}

/* Builds every table of the gathered metrics in their order. */
static void
sel_build_all(const struct sel_gather *g, const struct select_query *q,
    struct select_result *r)
{
	char  *done = xcalloc(g->n + 1, 1);
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (done[i] || select_probe_hidden(g, &g->v[i]))
			continue;
		if (sel_metric_rows(g, i, q->rows))
			sel_build_benchmark(g, i, done, q, r);
		else
			sel_build(&g->v[i], q, g, sel_result_add(r));
		done[i] = 1;
	}
	free(done);
}

/* Gathers the samples that count of q's jobs into tables; see select.h. */
int
select_tables(struct db *db, const struct select_query *q,
    struct select_result *r, char **cause)
{
	struct sel_gather g = { .last = { .run = -1 } };
	int64_t		 *jobs = sel_jobs(q);
	size_t		  i;
	int		  rc = -1;

	memset(r, 0, sizeof *r);
	g.monitors = q->monitors;
	if (sel_auto_by(db, q, jobs, &g, cause) == -1)
		goto out;
	r->by = g.by;
	if (db_samples_of_jobs(db, jobs, q->njobs, q->benchmark,
		select_probe_metric(&g, q->metric), sel_sample_cb, &g,
		cause) == -1 ||
	    select_adapt_gather(db, jobs, q->njobs, &g, cause) == -1)
		goto out;
	rc = SELECT_REFUSED;
	if (g.conflict != NULL) {
		*cause = g.conflict;
		g.conflict = NULL;
		goto out;
	}
	if ((!q->pool && select_refuse_pooled(&g, cause) != 0) ||
	    select_check_base(&g, q->base, cause) != 0)
		goto out;
	select_probe_order(&g);
	sel_build_all(&g, q, r);
	select_probe_notes(&g, r);
	rc = 0;
out:
	for (i = 0; i < g.n; i++)
		sel_table_free(&g.v[i]);
	free(g.v);
	free(g.conflict);
	free(g.last.metric);
	select_set_clear(&g.methods);
	select_adapt_free(&g);
	free(jobs);
	return rc;
}

/* Frees every table of r and zeroes it. */
void
select_result_clear(struct select_result *r)
{
	size_t i, j;

	for (i = 0; i < r->n; i++) {
		for (j = 0; j < r->v[i].table->nrows; j++) {
			free(r->v[i].params[j]);
			free(r->v[i].values[j]);
			if (r->v[i].metrics != NULL)
				free(r->v[i].metrics[j]);
		}
		free(r->v[i].params);
		free(r->v[i].values);
		free(r->v[i].metrics);
		free(r->v[i].swept);
		compare_table_free(r->v[i].table);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}
