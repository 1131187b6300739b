/*
 * hilab compare: stored samples -> comparison tables.  report/select.c
 * gathers them (one table per benchmark metric, one row per parameter set,
 * one column per kernel, machine or job; --rows metric: one row per metric
 * of a benchmark); report/render.c prints them.  The base column is the
 * first --job's first kernel (or --base); a selection that would pool
 * machines, kernels or jobs into one cell is refused unless --pool.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "db/db.h"
#include "report/render.h"
#include "report/select.h"

#define COMPARE_MAX_JOBS 64

struct compare_args {
	long long	    jobs[COMPARE_MAX_JOBS];
	struct select_query q;
	const char	   *style;
};

/* Reads the options, checked against the table already, into c. */
static int
compare_args_read(const struct args *a, struct compare_args *c)
{
	size_t i, n = args_count(a, "job");

	if (n > COMPARE_MAX_JOBS)
		return cli_error(CLI_EXIT_USAGE, "compare: at most %d --job",
		    COMPARE_MAX_JOBS);
	for (i = 0; i < n; i++)
		c->jobs[i] = args_nth(a, "job", i)->num;
	c->q.jobs = c->jobs;
	c->q.njobs = n;
	c->q.rows = SELECT_ROWS_AUTO;
	if (args_get(a, "by") != NULL)
		select_by_parse(args_text(a, "by", NULL), &c->q.by);
	if (args_get(a, "rows") != NULL)
		select_rows_parse(args_text(a, "rows", NULL), &c->q.rows);
	c->q.benchmark = args_text(a, "benchmark", NULL);
	c->q.metric = args_text(a, "metric", NULL);
	c->q.base = args_text(a, "base", NULL);
	c->q.pool = args_flag(a, "pool");
	c->q.monitors = args_flag(a, "monitors");
	c->q.statistic = args_text(a, "statistic", NULL);
	c->style = args_text(a, "style", c->style);
	return 0;
}

/* Renders every table in the chosen style; json: one array of them. */
static int
compare_print(const struct select_result *r, const char *style)
{
	struct compare_table **v;
	char		      *cause = NULL;
	size_t		       i;
	int		       rc;

	if (strcmp(style, "json") == 0) {
		v = cli_select_tables(r);
		rc = render_json_print_all(v, r->n, stdout, &cause);
		free(v);
		if (rc == -1)
			return cli_cause(CLI_EXIT_FAIL, cause);
		return CLI_EXIT_OK;
	}
	for (i = 0; i < r->n; i++) {
		if (i > 0)
			putchar('\n');
		if (render_print(r->v[i].table, style, stdout, &cause) == -1) {
			cli_error(CLI_EXIT_FAIL, "%s", cause);
			free(cause);
			return CLI_EXIT_FAIL;
		}
	}
	return CLI_EXIT_OK;
}

/* Picks the newest done job with samples and says which on stderr. */
static int
compare_latest(struct db *db, struct compare_args *a)
{
	char   *cause = NULL;
	int64_t id;
	int	rc;

	if ((id = db_samples_latest_job(db, &cause)) <= 0) {
		rc = id == 0
		    ? cli_error(CLI_EXIT_FAIL, "no done job has samples yet")
		    : cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return rc;
	}
	a->jobs[a->q.njobs++] = id;
	fprintf(stderr,
	    "hilab: compare: job %lld, the newest done job with samples\n",
	    (long long)id);
	return CLI_EXIT_OK;
}

/*
 * Checks the jobs given (each must exist: exit 2 naming the first that
 * does not), or picks the newest done job with samples.
 */
static int
compare_jobs(struct db *db, struct compare_args *a)
{
	char   *cause = NULL;
	int64_t id, ids[COMPARE_MAX_JOBS];
	size_t	i;
	int	rc;

	if (a->q.njobs == 0)
		return compare_latest(db, a);
	for (i = 0; i < a->q.njobs; i++)
		ids[i] = a->jobs[i];
	rc = db_jobs_missing(db, ids, a->q.njobs, &id, &cause);
	if (rc == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return rc;
	}
	if (rc == 1)
		return cli_error(CLI_EXIT_USAGE, "--job %lld: no such job",
		    (long long)id);
	return CLI_EXIT_OK;
}

/* hilab compare [OPTIONS]: the tables of a selection. */
int
cmd_compare(const struct cli_options *o, const struct args *args)
{
	struct compare_args  a = { .style = o->json ? "json" : "amd" };
	struct select_result r = { 0 };
	char		    *cause = NULL;
	struct db	    *db;
	int		     rc;

	if ((rc = compare_args_read(args, &a)) != 0)
		return rc;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = compare_jobs(db, &a)) != CLI_EXIT_OK)
		;
	else if ((rc = select_tables(db, &a.q, &r, &cause)) < 0)
		rc = cli_error(rc == SELECT_REFUSED ? CLI_EXIT_USAGE
						    : CLI_EXIT_FAIL,
		    "%s", cause);
	else if (r.n == 0)
		rc = cli_no_samples(o, a.q.benchmark);
	else
		rc = compare_print(&r, a.style);
	free(cause);
	select_result_clear(&r);
	db_close(db);
	return rc;
}
