/*
 * hilab compare: stored samples -> comparison tables (report/).  One table
 * per benchmark metric, one row per parameter set, one column per kernel,
 * machine or job (--by), printed in a style of report/render.h.
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "controller/cli/cli.h"
#include "db/db.h"
#include "report/compare.h"
#include "report/render.h"

#define COMPARE_MAX_JOBS	64

enum compare_by { BY_AUTO, BY_KERNEL, BY_MACHINE, BY_JOB };

struct compare_args {
	long long	 jobs[COMPARE_MAX_JOBS];
	size_t		 njobs;
	enum compare_by	 by;
	const char	*benchmark;
	const char	*metric;
	const char	*style;
	const char	*statistic;	/* overrides the metric's default */
};

/* Samples of one cell while they are gathered. */
struct gather_cell {
	char	*row;
	char	*col;
	double	*x;
	size_t	 n;
};

/* The samples of one benchmark metric while they are gathered. */
struct gather_table {
	char			*benchmark;
	char			*metric;
	char			*unit;
	char			*direction;
	char			*statistic;
	char			**rows;
	size_t			  nrows;
	char			**cols;
	size_t			  ncols;
	struct gather_cell	*cells;
	size_t			  ncells;
};

struct gather {
	struct gather_table	*v;
	size_t			 n;
};

/* Returns the index of s in v, appending it if new. */
static size_t
gather_index(char ***v, size_t *n, const char *s)
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

/* The table of (benchmark, metric), added if new. */
static struct gather_table *
gather_table(struct gather *g, sqlite3_stmt *st)
{
	const char *bench = (const char *)sqlite3_column_text(st, 0);
	const char *metric = (const char *)sqlite3_column_text(st, 1);
	struct gather_table *t;
	size_t i;

	for (i = 0; i < g->n; i++) {
		t = &g->v[i];
		if (strcmp(t->benchmark, bench) == 0 &&
		    strcmp(t->metric, metric) == 0)
			return t;
	}
	g->v = xreallocarray(g->v, g->n + 1, sizeof *g->v);
	t = &g->v[g->n++];
	memset(t, 0, sizeof *t);
	t->benchmark = xstrdup(bench);
	t->metric = xstrdup(metric);
	t->unit = xstrdup((const char *)sqlite3_column_text(st, 2));
	t->direction = xstrdup((const char *)sqlite3_column_text(st, 3));
	t->statistic = xstrdup((const char *)sqlite3_column_text(st, 4));
	return t;
}

/* Adds one sample to its cell. */
static void
gather_add(struct gather_table *t, const char *row, const char *col, double v)
{
	struct gather_cell *c = NULL;
	size_t i;

	gather_index(&t->rows, &t->nrows, row);
	gather_index(&t->cols, &t->ncols, col);
	for (i = 0; i < t->ncells; i++) {
		if (strcmp(t->cells[i].row, row) == 0 &&
		    strcmp(t->cells[i].col, col) == 0) {
			c = &t->cells[i];
			break;
		}
	}
	if (c == NULL) {
		t->cells = xreallocarray(t->cells, t->ncells + 1,
		    sizeof *t->cells);
		c = &t->cells[t->ncells++];
		memset(c, 0, sizeof *c);
		c->row = xstrdup(row);
		c->col = xstrdup(col);
	}
	c->x = xreallocarray(c->x, c->n + 1, sizeof *c->x);
	c->x[c->n++] = v;
}

static void
gather_free(struct gather *g)
{
	struct gather_table *t;
	size_t i, j;

	for (i = 0; i < g->n; i++) {
		t = &g->v[i];
		for (j = 0; j < t->nrows; j++)
			free(t->rows[j]);
		for (j = 0; j < t->ncols; j++)
			free(t->cols[j]);
		for (j = 0; j < t->ncells; j++) {
			free(t->cells[j].row);
			free(t->cells[j].col);
			free(t->cells[j].x);
		}
		free(t->rows);
		free(t->cols);
		free(t->cells);
		free(t->benchmark);
		free(t->metric);
		free(t->unit);
		free(t->direction);
		free(t->statistic);
	}
	free(g->v);
}

static const char compare_sql[] =
    "SELECT r.benchmark, s.metric, COALESCE(m.unit, ''), "
    "COALESCE(m.direction, 'lower'), COALESCE(m.statistic, 'amean'), "
    "r.params, k.name, r.machine, r.job, s.value "
    "FROM samples s JOIN runs r ON r.id = s.run "
    "JOIN kernels k ON k.id = r.kernel "
    "LEFT JOIN metrics m ON m.name = s.metric "
    "WHERE r.job IN (SELECT value FROM json_each(?1)) "
    "AND (?2 IS NULL OR r.benchmark = ?2) AND (?3 IS NULL OR s.metric = ?3) "
    "ORDER BY r.benchmark, s.metric, r.job, r.round, r.position, "
    "s.iteration";

/* The label of a sample's column for --by. */
static char *
compare_column(sqlite3_stmt *st, enum compare_by by)
{
	if (by == BY_KERNEL)
		return xstrdup((const char *)sqlite3_column_text(st, 6));
	if (by == BY_MACHINE)
		return xstrdup((const char *)sqlite3_column_text(st, 7));
	return xasprintf("job %lld", (long long)sqlite3_column_int64(st, 8));
}

/* The selected jobs as a JSON array for json_each(). */
static char *
compare_jobs_json(const struct compare_args *a)
{
	char *s = xstrdup("["), *t;
	size_t i;

	for (i = 0; i < a->njobs; i++) {
		t = xasprintf("%s%s%lld", s, i ? "," : "", a->jobs[i]);
		free(s);
		s = t;
	}
	t = xasprintf("%s]", s);
	free(s);
	return t;
}

/* Runs the selection and gathers every sample into tables. */
static int
compare_gather(sqlite3 *sq, const struct compare_args *a, enum compare_by by,
    struct gather *g, char **cause)
{
	sqlite3_stmt *st = NULL;
	char *jobs = compare_jobs_json(a), *col;
	int rc;

	if (sqlite3_prepare_v2(sq, compare_sql, -1, &st, NULL) != SQLITE_OK) {
		*cause = xasprintf("select samples: %s", sqlite3_errmsg(sq));
		free(jobs);
		return -1;
	}
	sqlite3_bind_text(st, 1, jobs, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, a->benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, a->metric, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		col = compare_column(st, by);
		gather_add(gather_table(g, st),
		    (const char *)sqlite3_column_text(st, 5), col,
		    sqlite3_column_double(st, 9));
		free(col);
	}
	if (rc != SQLITE_DONE)
		*cause = xasprintf("select samples: %s", sqlite3_errmsg(sq));
	sqlite3_finalize(st);
	free(jobs);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Counts distinct values of a column among the selected jobs' runs. */
static int
compare_count(sqlite3 *sq, const struct compare_args *a, const char *what)
{
	sqlite3_stmt *st;
	char *sql, *jobs = compare_jobs_json(a);
	int n = 0;

	sql = xasprintf("SELECT COUNT(DISTINCT %s) FROM runs r JOIN kernels k "
	    "ON k.id = r.kernel WHERE r.job IN (SELECT value FROM "
	    "json_each(?1))", what);
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, jobs, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	free(sql);
	free(jobs);
	return n;
}

/* Kernels when there are several, else machines, else jobs. */
static enum compare_by
compare_auto_by(sqlite3 *sq, const struct compare_args *a)
{
	if (compare_count(sq, a, "k.name") > 1)
		return BY_KERNEL;
	if (compare_count(sq, a, "r.machine") > 1)
		return BY_MACHINE;
	return BY_JOB;
}

/* The newest job with samples, when none was named. */
static long long
compare_latest_job(sqlite3 *sq)
{
	sqlite3_stmt *st;
	long long id = -1;

	if (sqlite3_prepare_v2(sq, "SELECT MAX(r.job) FROM runs r WHERE "
	    "EXISTS (SELECT 1 FROM samples s WHERE s.run = r.id)", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* Value of key in a canonical "k=v,k2=v2" parameter text (caller frees). */
static char *
compare_param(const char *params, const char *key)
{
	size_t klen = strlen(key);
	const char *p = params, *end;

	while (*p != '\0') {
		end = p + strcspn(p, ",");
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return xstrndup(p + klen + 1, end - p - klen - 1);
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* The one parameter whose value changes across rows, or NULL. */
static char *
compare_swept_key(const struct gather_table *t)
{
	char *key = NULL, *k, *v0, *v;
	const char *p;
	size_t i, len;

	for (p = t->nrows ? t->rows[0] : ""; *p != '\0'; p += len + (p[len] != 0)) {
		len = strcspn(p, ",");
		k = xstrndup(p, strcspn(p, "="));
		v0 = compare_param(t->rows[0], k);
		for (i = 1; i < t->nrows; i++) {
			v = compare_param(t->rows[i], k);
			if (v == NULL || v0 == NULL || strcmp(v, v0) != 0)
				i = t->nrows + 1;
			free(v);
		}
		free(v0);
		if (i > t->nrows && key != NULL) {
			free(k);
			free(key);
			return NULL;
		}
		if (i > t->nrows)
			key = k;
		else
			free(k);
	}
	return key;
}

/* Row label: "4-groups" when one parameter is swept, else the params. */
static char *
compare_row_label(const struct gather_table *t, size_t row, const char *key)
{
	char *v;

	if (key == NULL || (v = compare_param(t->rows[row], key)) == NULL)
		return xstrdup(*t->rows[row] ? t->rows[row] : "default");
	return xasprintf("%s-%s", v, key);
}

/* Builds the report table of a gathered benchmark metric. */
static struct compare_table *
compare_build(const struct gather_table *g, const char *statistic)
{
	struct compare_table *t;
	enum compare_stat stat = COMPARE_AMEAN;
	char *key = compare_swept_key(g), *label;
	size_t i, row, col;

	compare_stat_parse(statistic, &stat);
	t = compare_table_new(g->benchmark, g->metric, g->unit,
	    strcmp(g->direction, "higher") == 0 ? COMPARE_HIGHER_BETTER :
	    COMPARE_LOWER_BETTER, stat);
	compare_table_set_case_label(t, "Case");
	for (i = 0; i < g->ncols; i++)
		compare_table_add_column(t, g->cols[i]);
	for (i = 0; i < g->nrows; i++) {
		label = compare_row_label(g, i, key);
		compare_table_add_row(t, label);
		free(label);
	}
	for (i = 0; i < g->ncells; i++) {
		for (row = 0; strcmp(g->rows[row], g->cells[i].row); row++)
			;
		for (col = 0; strcmp(g->cols[col], g->cells[i].col); col++)
			;
		compare_table_set_samples(t, row, col, g->cells[i].x,
		    g->cells[i].n);
	}
	free(key);
	compare_table_compute(t);
	return t;
}

/* Parses the compare options. */
static int
compare_args_parse(int argc, char **argv, struct compare_args *a)
{
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "by", required_argument, NULL, 'b' },
		{ "benchmark", required_argument, NULL, 'B' },
		{ "metric", required_argument, NULL, 'm' },
		{ "style", required_argument, NULL, 's' },
		{ "statistic", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *bys[] = { "auto", "kernel", "machine", "job" };
	enum compare_stat stat;
	int c, i;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (a->njobs == COMPARE_MAX_JOBS ||
			    (a->jobs[a->njobs++] = cli_job_id(optarg)) == -1)
				return cli_usage_error("--job: \"%s\" is not a "
				    "job id", optarg);
			break;
		case 'b':
			for (i = 0; i < 4 && strcmp(optarg, bys[i]); i++)
				;
			if (i == 4)
				return cli_usage_error("--by: \"%s\" is not "
				    "kernel, machine or job", optarg);
			a->by = (enum compare_by)i;
			break;
		case 'B': a->benchmark = optarg; break;
		case 'm': a->metric = optarg; break;
		case 's':
			if (render_find(optarg) == NULL)
				return cli_usage_error("--style: unknown style "
				    "\"%s\"", optarg);
			a->style = optarg;
			break;
		case 'S':
			if (compare_stat_parse(optarg, &stat) == -1)
				return cli_usage_error("--statistic: unknown "
				    "\"%s\"", optarg);
			a->statistic = optarg;
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return cli_usage_error("compare: unexpected \"%s\"",
		    argv[optind]);
	return 0;
}

/* Renders every gathered table in the chosen style. */
static int
compare_print(const struct gather *g, const struct compare_args *a)
{
	struct compare_table *t;
	char *cause = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < g->n && rc == 0; i++) {
		t = compare_build(&g->v[i], a->statistic ? a->statistic :
		    g->v[i].statistic);
		if (i > 0)
			putchar('\n');
		if (render_print(t, a->style, stdout, &cause) == -1) {
			rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
			free(cause);
		}
		compare_table_free(t);
	}
	return rc;
}

int
cmd_compare(const struct cli_options *o, int argc, char **argv)
{
	struct compare_args a = { .style = "amd" };
	struct gather g = { 0 };
	char *cause = NULL;
	struct db *db;
	int rc;

	if (o->json)
		a.style = "json";
	if ((rc = compare_args_parse(argc, argv, &a)) != 0)
		return rc;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (a.njobs == 0 &&
	    (a.jobs[a.njobs++] = compare_latest_job(db_sqlite(db))) == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "no job has samples yet");
		goto out;
	}
	if (compare_gather(db_sqlite(db), &a, a.by != BY_AUTO ? a.by :
	    compare_auto_by(db_sqlite(db), &a), &g, &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else if (g.n == 0)
		rc = cli_error(CLI_EXIT_FAIL, "no samples match");
	else
		rc = compare_print(&g, &a);
out:
	free(cause);
	gather_free(&g);
	db_close(db);
	return rc;
}
