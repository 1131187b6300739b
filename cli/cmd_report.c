/*
 * hilab report: the text of report/report_text.h for one job (machines,
 * kernels, environment, one table per benchmark metric, notes, and what
 * reproduces it), printed with every tab expanded, so the output has none.
 * With --json: the job, that text, and its tables as the json style of
 * report/render.h prints them.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "report/render.h"
#include "report/report_text.h"
#include "report/select.h"

/* Writes text to f with every tab expanded to spaces. */
static void
report_untab(FILE *f, const char *text)
{
	size_t col = 0;

	for (; *text != '\0'; text++) {
		if (*text == '\t') {
			do
				putc(' ', f);
			while (++col % 8 != 0);
			continue;
		}
		putc(*text, f);
		col = *text == '\n' ? 0 : col + 1;
	}
}

/* The tables of the report's job (as its text selects them) as JSON. */
static json_t *
report_tables_json(struct db *db, long long id, char **cause)
{
	struct select_query    q = { .jobs = &id,
		   .njobs = 1,
		   .rows = SELECT_ROWS_AUTO,
		   .monitors = true };
	struct select_result   r = { 0 };
	struct compare_table **v;
	json_t		      *tables = NULL;

	if (select_tables(db, &q, &r, cause) >= 0) {
		v = cli_select_tables(&r);
		tables = render_json_tables(v, r.n);
		free(v);
	}
	select_result_clear(&r);
	return tables;
}

/* Prints the report as JSON: the job, its style, text and tables. */
static int
report_json(struct db *db, const struct db_job *j, const char *style,
    const char *text)
{
	json_t *tables;
	char   *cause = NULL, *plain = NULL;
	size_t	len = 0;
	FILE   *mem;

	if ((tables = report_tables_json(db, j->id, &cause)) == NULL) {
		cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return CLI_EXIT_FAIL;
	}
	if ((mem = open_memstream(&plain, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	report_untab(mem, text);
	fclose(mem);
	cli_print_json(json_pack("{s:o, s:s, s:s, s:o}", "job", cli_job_json(j),
	    "style", style, "text", plain, "tables", tables));
	free(plain);
	return CLI_EXIT_OK;
}

/* hilab report JOB [--style STYLE]: the job's report, untabbed, or JSON. */
int
cmd_report(const struct cli_options *o, const struct args *a)
{
	const char    *style = args_text(a, "style", "amd");
	struct db_job *j = NULL;
	char	      *cause = NULL, *text = NULL;
	size_t	       len = 0;
	struct db     *db;
	FILE	      *mem;
	int	       rc;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = cli_job(db, a->pos[0].num, &j)) != CLI_EXIT_OK)
		goto out;
	if ((mem = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	rc = report_text_print(mem, db, j, style, &cause);
	fclose(mem);
	if (rc == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else if (o->json)
		rc = report_json(db, j, style, text);
	else
		report_untab(stdout, text);
	if (rc == 0 && fflush(stdout) != 0)
		rc = cli_error(CLI_EXIT_FAIL, "report: write: output error");
out:
	free(text);
	free(cause);
	db_job_free(j);
	db_close(db);
	return rc;
}
