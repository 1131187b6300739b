/*
 * hilab report: the text of report/report_text.h for one job (machines,
 * kernels, environment, one table per benchmark metric, notes, and what
 * reproduces it), printed with every tab expanded, so the output has none.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/log.h"
#include "db/db.h"
#include "report/report_text.h"

/* Writes text to stdout with every tab expanded to spaces. */
static void
report_untab(const char *text)
{
	size_t col = 0;

	for (; *text != '\0'; text++) {
		if (*text == '\t') {
			do
				putchar(' ');
			while (++col % 8 != 0);
			continue;
		}
		putchar(*text);
		col = *text == '\n' ? 0 : col + 1;
	}
}

/* Parses the report options. */
static int
report_args(int argc, char **argv, long long *job, const char **style)
{
	static const struct option longopts[] = {
		{ "style", required_argument, NULL, 's' }, { NULL, 0, NULL, 0 }
	};
	static const char *styles[] = { "amd", "change", "pct", "meansd",
		"markdown", NULL };
	int		   c, i;

	optind = 0; /* reinitialize GNU getopt: options may follow JOB */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 's')
			return CLI_EXIT_USAGE;
		for (i = 0; styles[i] != NULL && strcmp(styles[i], optarg); i++)
			;
		if (styles[i] == NULL)
			return cli_usage_error(
			    "--style: \"%s\" is not amd, "
			    "change, pct, meansd or markdown",
			    optarg);
		*style = optarg;
	}
	if (argc - optind != 1 || (*job = cli_job_id(argv[optind])) == -1)
		return cli_usage_error("usage: hilab report JOB [--style "
				       "amd|change|pct|meansd|markdown]");
	return 0;
}

/* hilab report JOB [--style STYLE]: the job's report, untabbed. */
int
cmd_report(const struct cli_options *o, int argc, char **argv)
{
	const char    *style = "amd";
	struct db_job *j = NULL;
	char	      *cause = NULL, *text = NULL;
	size_t	       len = 0;
	long long      id;
	struct db     *db;
	FILE	      *mem;
	int	       rc;

	if ((rc = report_args(argc, argv, &id, &style)) != 0)
		return rc;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((j = db_job_get(db, id, &cause)) == NULL) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
		goto out;
	}
	if ((mem = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	rc = report_text_print(mem, db, j, style, &cause);
	fclose(mem);
	if (rc == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else
		report_untab(text);
	if (rc == 0 && fflush(stdout) != 0)
		rc = cli_error(CLI_EXIT_FAIL, "report: write: output error");
out:
	free(text);
	free(cause);
	db_job_free(j);
	db_close(db);
	return rc;
}
