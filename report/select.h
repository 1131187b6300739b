/*
 * Stored samples of chosen jobs gathered into computed comparison tables:
 * one table per benchmark metric, one column per kernel, machine or job,
 * one row per parameter set (labelled "4-groups" when exactly one parameter
 * changes across rows), the raw samples in each cell, per-boot means (by
 * machine and runs.boot) for the second test, and environment notes from
 * the facts of the runs behind each column (report/envdiff.h).
 *
 *	struct select_query q = { .jobs = ids, .njobs = 1 };
 *	struct select_result r = { 0 };
 *	if (select_tables(db_sqlite(db), &q, &r, &cause) == 0)
 *		for (i = 0; i < r.n; i++)
 *			render_print(r.v[i].table, "amd", stdout, &cause);
 *	select_result_clear(&r);
 */
#ifndef HILAB_SELECT_H
#define HILAB_SELECT_H

#include <stddef.h>

struct compare_table;
struct sqlite3;

enum select_by {
	SELECT_BY_AUTO,		/* kernels if several, else machines, else jobs */
	SELECT_BY_KERNEL,
	SELECT_BY_MACHINE,
	SELECT_BY_JOB
};

struct select_query {
	const long long	*jobs;
	size_t		 njobs;
	enum select_by	 by;
	const char	*benchmark;	/* NULL: every benchmark */
	const char	*metric;	/* NULL: every metric */
	const char	*statistic;	/* NULL: each metric's own */
};

/* One computed table and where its rows come from. */
struct select_table {
	struct compare_table	*table;
	char			*swept;		/* the parameter that changes,
						   or NULL */
	char			**params;	/* canonical params per row */
	char			**values;	/* swept value per row, or NULL
						   entries */
};

/* Owns every table; select_result_clear() frees them. */
struct select_result {
	enum select_by		 by;		/* as resolved */
	struct select_table	*v;
	size_t			 n;
};

/*
 * Gathers the samples of q's jobs into tables (r is overwritten).  Returns
 * 0 (r->n may be 0 when nothing matches), or -1 with *cause.
 */
int	 select_tables(struct sqlite3 *, const struct select_query *q,
	    struct select_result *r, char **cause);
void	 select_result_clear(struct select_result *);
/* The newest job with samples, or -1 if none has any. */
long long select_latest_job(struct sqlite3 *);
/* "auto", "kernel", "machine", "job". */
const char *select_by_name(enum select_by);
int	 select_by_parse(const char *, enum select_by *);
/* Value of key in a canonical "k=v,k2=v2" parameter text (caller frees). */
char	*select_param(const char *params, const char *key);

#endif
