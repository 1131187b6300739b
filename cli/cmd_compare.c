/*
 * hilab compare: stored samples -> comparison tables.  report/select.c
 * gathers them (one table per benchmark metric, one row per parameter set,
 * one column per kernel, machine or job; --rows metric: one row per metric
 * of a benchmark); report/render.c prints them.  The base column is the
 * first --job's first kernel (or --base); a selection that would pool
 * machines, kernels or jobs into one cell is refused unless --pool.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "db/db.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/select.h"

#define COMPARE_MAX_JOBS 64

struct compare_args {
	long long	    jobs[COMPARE_MAX_JOBS];
	struct select_query q;
	const char	   *style;
};

/* Parses one option into a; CLI_EXIT_USAGE on a bad value. */
static int
compare_option(int c, const char *arg, struct compare_args *a)
{
	enum compare_stat stat;

	switch (c) {
	case 'j':
		if (a->q.njobs == COMPARE_MAX_JOBS ||
		    (a->jobs[a->q.njobs++] = cli_job_id(arg)) == -1)
			return cli_usage_error("--job: \"%s\" is not a job id",
			    arg);
		return 0;
	case 'b':
		if (select_by_parse(arg, &a->q.by) == -1)
			return cli_usage_error("--by: \"%s\" is not auto, "
					       "kernel, machine or job",
			    arg);
		return 0;
	case 'r':
		if (select_rows_parse(arg, &a->q.rows) == -1)
			return cli_usage_error("--rows: \"%s\" is not params, "
					       "metric or auto",
			    arg);
		return 0;
	case 'B':
		a->q.benchmark = arg;
		return 0;
	case 'm':
		a->q.metric = arg;
		return 0;
	case 'a':
		a->q.base = arg;
		return 0;
	case 'p':
		a->q.pool = true;
		return 0;
	case 's':
		if (render_find(arg) == NULL)
			return cli_usage_error("--style: unknown style \"%s\"",
			    arg);
		a->style = arg;
		return 0;
	case 'S':
		if (compare_stat_parse(arg, &stat) == -1)
			return cli_usage_error("--statistic: unknown \"%s\"",
			    arg);
		a->q.statistic = arg;
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* Parses the compare options. */
static int
compare_args_parse(int argc, char **argv, struct compare_args *a)
{
	static const struct option longopts[] = { { "job", required_argument,
						      NULL, 'j' },
		{ "by", required_argument, NULL, 'b' },
		{ "benchmark", required_argument, NULL, 'B' },
		{ "metric", required_argument, NULL, 'm' },
		{ "style", required_argument, NULL, 's' },
		{ "statistic", required_argument, NULL, 'S' },
		{ "rows", required_argument, NULL, 'r' },
		{ "base", required_argument, NULL, 'a' },
		{ "pool", no_argument, NULL, 'p' }, { NULL, 0, NULL, 0 } };
	int			   c, rc;

	a->q.jobs = a->jobs;
	a->q.rows = SELECT_ROWS_AUTO;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if ((rc = compare_option(c, optarg, a)) != 0)
			return rc;
	}
	if (optind != argc)
		return cli_usage_error("compare: unexpected \"%s\"",
		    argv[optind]);
	return 0;
}

/* Renders every table in the chosen style. */
static int
compare_print(const struct select_result *r, const char *style)
{
	char  *cause = NULL;
	size_t i;

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

/*
 * Checks the jobs given (each must exist), or picks the newest done job
 * with samples and says which.
 */
static int
compare_jobs(struct db *db, struct compare_args *a)
{
	char   *cause = NULL;
	int64_t id, ids[COMPARE_MAX_JOBS];
	size_t	i;
	int	rc;

	if (a->q.njobs == 0) {
		if ((id = db_samples_latest_job(db, &cause)) <= 0) {
			rc = id == 0 ? cli_error(CLI_EXIT_FAIL,
					   "no done job has samples yet")
				     : cli_error(CLI_EXIT_FAIL, "%s", cause);
			free(cause);
			return rc;
		}
		a->jobs[a->q.njobs++] = id;
		fprintf(stderr,
		    "hilab: compare: job %lld, the newest done job "
		    "with samples\n",
		    (long long)id);
		return CLI_EXIT_OK;
	}
	for (i = 0; i < a->q.njobs; i++)
		ids[i] = a->jobs[i];
	rc = db_jobs_missing(db, ids, a->q.njobs, &id, &cause);
	if (rc == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return rc;
	}
	if (rc == 1)
		return cli_usage_error("--job %lld: no such job",
		    (long long)id);
	return CLI_EXIT_OK;
}

int
cmd_compare(const struct cli_options *o, int argc, char **argv)
{
	struct compare_args  a = { .style = o->json ? "json" : "amd" };
	struct select_result r = { 0 };
	char		    *cause = NULL;
	struct db	    *db;
	int		     rc;

	if ((rc = compare_args_parse(argc, argv, &a)) != 0)
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
		rc = cli_error(CLI_EXIT_FAIL, "no samples match");
	else
		rc = compare_print(&r, a.style);
	free(cause);
	select_result_clear(&r);
	db_close(db);
	return rc;
}
