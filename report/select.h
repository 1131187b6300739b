/*
 * Stored samples of chosen jobs gathered into computed comparison tables:
 * one table per benchmark metric, one column per kernel, machine or job,
 * one row per parameter set (labelled "4-groups" when exactly one parameter
 * changes across rows), the raw samples in each cell, per-boot means (by
 * machine and runs.boot) for the second test, and environment notes from
 * the facts of the runs behind each column (report/envdiff.h).
 *
 * In metric rows the rows are instead the metrics of one benchmark (in the
 * order the job lists them, labelled by each metric's label or name):
 * one table per benchmark and parameter set, its metric field the
 * parameter set, grouping metrics that share unit, direction and
 * statistic.
 *
 * The samples are those that count (db_samples_of_jobs in db/db.h: of runs
 * done and not superseded).
 *
 *	struct select_query q = { .jobs = ids, .njobs = 1 };
 *	struct select_result r = { 0 };
 *	if (select_tables(db, &q, &r, &cause) == 0)
 *		for (i = 0; i < r.n; i++)
 *			render_print(r.v[i].table, "amd", stdout, &cause);
 *	select_result_clear(&r);
 */
#ifndef HILAB_SELECT_H
#define HILAB_SELECT_H

#include <stdbool.h>
#include <stddef.h>

struct compare_table;
struct db;

enum select_by {
	SELECT_BY_AUTO, /* kernels if several, else machines, else jobs */
	SELECT_BY_KERNEL,
	SELECT_BY_MACHINE,
	SELECT_BY_JOB
};

enum select_rows {
	SELECT_ROWS_PARAMS, /* a table per metric, a row per params */
	SELECT_ROWS_METRIC, /* a table per benchmark, a row per metric */
	SELECT_ROWS_AUTO    /* metric rows for a benchmark that has several
			       metrics, a label on one of them and one
			       parameter set; else parameter rows */
};

struct select_query {
	const long long *jobs; /* the first one's first kernel is the base */
	size_t		 njobs;
	enum select_by	 by;
	const char	*benchmark; /* NULL: every benchmark */
	const char	*metric;    /* NULL: every metric */
	const char	*statistic; /* NULL: each metric's own */
	enum select_rows rows;
	const char	*base;	   /* the base column's name, or NULL */
	bool		 pool;	   /* let a cell hold several of a kind */
	bool		 monitors; /* monitor deltas ("mon.*") too */
};

/* One computed table and where its rows come from. */
struct select_table {
	struct compare_table *table;
	char		     *swept; /* the parameter that changes,
					or NULL */
	char **params;		     /* canonical params per row */
	char **values;		     /* swept value per row, or NULL
					entries */
	char **metrics;		     /* metric per row in metric
					rows, else NULL */
};

/* Owns every table; select_result_clear() frees them. */
struct select_result {
	enum select_by	     by; /* as resolved */
	struct select_table *v;
	size_t		     n;
};

/* What select_tables returns for a selection it refuses. */
#define SELECT_REFUSED (-2)

/*
 * Gathers the samples of q's jobs into tables (r is overwritten), each
 * metric with the meaning its own job declares.  Returns 0 (r->n may be 0
 * when nothing matches), -1 with *cause when the database failed, or
 * SELECT_REFUSED with *cause naming what differs for a selection that
 * would pool machines, kernels or jobs into one cell (unless q->pool; the
 * table then notes what it pooled), whose jobs declare one metric
 * differently, or whose base q->base is not a column of every table.
 */
int  select_tables(struct db *, const struct select_query *q,
     struct select_result *r, char **cause);
void select_result_clear(struct select_result *);
/* "auto", "kernel", "machine", "job". */
const char *select_by_name(enum select_by);
int	    select_by_parse(const char *, enum select_by *);
/* "params", "metric", "auto". */
const char *select_rows_name(enum select_rows);
int	    select_rows_parse(const char *, enum select_rows *);
/* Value of key in a canonical "k=v,k2=v2" parameter text (caller frees). */
char *select_param(const char *params, const char *key);

#endif
