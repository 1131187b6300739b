/*
 * hilab plot: one chart per benchmark metric of a job (report/plot.h),
 * written as DIR/<benchmark>-<metric>.<png|svg>; prints each path.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "report/compare.h"
#include "report/plot.h"
#include "report/select.h"

struct plot_args {
	long long	 job;
	enum plot_format format;
	const char	*dir;
	const char	*benchmark;
};

/* A file name for a table: letters, digits, '.', '_' and '-' only. */
static char *
plot_file_name(const struct plot_args *a, const struct compare_table *t)
{
	char *s = xasprintf("%s-%s", t->title, t->metric), *p, *path;

	for (p = s; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
			*p = '-';
	}
	path = xasprintf("%s/%s.%s", a->dir, s, plot_format_ext(a->format));
	free(s);
	return path;
}

/* Parses the plot options. */
static int
plot_args_parse(int argc, char **argv, struct plot_args *a)
{
	static const struct option longopts[] = { { "format", required_argument,
						      NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "benchmark", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 } };
	int			   c;

	optind = 0; /* reinitialize GNU getopt: options may follow JOB */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (plot_format_parse(optarg, &a->format) == -1)
				return cli_usage_error("--format: \"%s\" is "
						       "not png or svg",
				    optarg);
			break;
		case 'o':
			a->dir = optarg;
			break;
		case 'B':
			a->benchmark = optarg;
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (argc - optind != 1 || (a->job = cli_job_id(argv[optind])) == -1)
		return cli_usage_error(
		    "usage: hilab plot JOB [--format "
		    "png|svg] [--output DIR] [--benchmark NAME]");
	return 0;
}

/* Writes every table of the selection. */
static int
plot_all(const struct plot_args *a, const struct select_result *r)
{
	const struct select_table *s;
	char			  *path, *cause = NULL;
	size_t			   i;
	int			   rc = 0;

	for (i = 0; i < r->n && rc == 0; i++) {
		s = &r->v[i];
		path = plot_file_name(a, s->table);
		if (plot_write(s->table, s->swept, s->swept ? s->values : NULL,
			a->format, path, &cause) == -1) {
			rc = cli_error(CLI_EXIT_FAIL, "plot: %s", cause);
			free(cause);
		} else
			printf("%s\n", path);
		free(path);
	}
	return rc;
}

int
cmd_plot(const struct cli_options *o, int argc, char **argv)
{
	struct plot_args     a = { .format = PLOT_PNG, .dir = "." };
	struct select_query  q = { .njobs = 1 };
	struct select_result r = { 0 };
	char		    *cause = NULL;
	struct db	    *db;
	int		     rc;

	if ((rc = plot_args_parse(argc, argv, &a)) != 0)
		return rc;
	if (mkdir(a.dir, 0777) == -1 && errno != EEXIST)
		return cli_error(CLI_EXIT_FAIL, "plot: \"%s\": %s", a.dir,
		    strerror(errno));
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	q.jobs = &a.job;
	q.benchmark = a.benchmark;
	if (select_tables(db, &q, &r, &cause) < 0)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else if (r.n == 0)
		rc = cli_error(CLI_EXIT_FAIL, "job %lld: no samples match",
		    a.job);
	else
		rc = plot_all(&a, &r);
	free(cause);
	select_result_clear(&r);
	db_close(db);
	return rc;
}
