/*
 * hilab plot: one chart per benchmark metric of a job (report/plot.h),
 * written as DIR/<benchmark>-<metric>.<png|svg>; prints each path (with
 * --json, the files written as a list).
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
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
	const char	*metric;
	bool		 monitors;
	bool		 json;
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

/* Reads the options, checked against the table already, into p. */
static void
plot_args_read(const struct cli_options *o, const struct args *a,
    struct plot_args *p)
{
	p->job = a->pos[0].num;
	if (args_get(a, "format") != NULL)
		plot_format_parse(args_text(a, "format", NULL), &p->format);
	p->dir = args_text(a, "output", p->dir);
	p->benchmark = args_text(a, "benchmark", NULL);
	p->metric = args_text(a, "metric", NULL);
	p->monitors = args_flag(a, "monitors");
	p->json = o->json;
}

/* A file written, as JSON. */
static json_t *
plot_file_json(const char *path, const struct compare_table *t)
{
	return json_pack("{s:s, s:s, s:s, s:s?}", "path", path, "benchmark",
	    t->title, "metric", t->metric, "machine", t->machine);
}

/*
 * Writes every table of the selection, printing each path (or, with
 * --json, the list of the files written, even when one failed).
 */
static int
plot_all(const struct plot_args *a, const struct select_result *r)
{
	const struct select_table *s;
	char			  *path, *cause = NULL;
	json_t			  *files = json_array();
	size_t			   i;
	int			   rc = 0;

	for (i = 0; i < r->n && rc == 0; i++) {
		s = &r->v[i];
		path = plot_file_name(a, s->table);
		if (plot_write(s->table, s->swept, s->swept ? s->values : NULL,
			a->format, path, &cause) == -1) {
			rc = cli_error(CLI_EXIT_FAIL, "plot: %s", cause);
			free(cause);
		} else if (a->json)
			json_array_append_new(files,
			    plot_file_json(path, s->table));
		else
			printf("%s\n", path);
		free(path);
	}
	if (a->json)
		cli_print_json(files);
	else
		json_decref(files);
	return rc;
}

/* Makes the output directory unless it is there. */
static int
plot_mkdir(const char *dir)
{
	if (mkdir(dir, 0777) == -1 && errno != EEXIST)
		return cli_error(CLI_EXIT_FAIL, "plot: \"%s\": %s", dir,
		    strerror(errno));
	return CLI_EXIT_OK;
}

/* hilab plot JOB [OPTIONS]: one chart per benchmark metric of the job. */
int
cmd_plot(const struct cli_options *o, const struct args *args)
{
	struct plot_args     a = { .format = PLOT_PNG, .dir = "." };
	struct select_query  q = { .njobs = 1 };
	struct select_result r = { 0 };
	struct db_job	    *j = NULL;
	char		    *cause = NULL;
	struct db	    *db;
	int		     rc;

	plot_args_read(o, args, &a);
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = cli_job(db, a.job, &j)) != CLI_EXIT_OK ||
	    (rc = plot_mkdir(a.dir)) != CLI_EXIT_OK)
		goto out;
	q.jobs = &a.job;
	q.benchmark = a.benchmark;
	q.metric = a.metric;
	q.monitors = a.monitors;
	if (select_tables(db, &q, &r, &cause) < 0)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else if (r.n == 0) {
		rc = cli_error(CLI_EXIT_FAIL, "job %lld: no samples match",
		    a.job);
		if (a.json)
			cli_print_json(json_array());
	} else
		rc = plot_all(&a, &r);
out:
	free(cause);
	select_result_clear(&r);
	db_job_free(j);
	db_close(db);
	return rc;
}
