/*
 * hilab query: one read-only SQL statement against the database (or a
 * copy of it), printed as aligned text, CSV (RFC 4180) or JSON.  The
 * database is opened read-only and a statement that would write is refused
 * before it runs (sqlite3_stmt_readonly).  The views v_runs and v_samples
 * (db/SCHEMA.md) are the documented starting points.
 */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "report/render.h"

enum query_format { QUERY_TEXT, QUERY_CSV, QUERY_JSON };

/* Every row of a result as text, for the aligned layout. */
struct query_rows {
	char **cells;	/* nrows x ncols, NULL for SQL NULL */
	int   *numeric; /* per column: every value a number */
	size_t nrows;
	int    ncols;
};

/* A value as text: numbers as SQLite prints them, blobs as x'hex'. */
static char *
query_value(sqlite3_stmt *st, int i)
{
	const unsigned char *b;
	char		    *s;
	int		     j, n;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, i);
		n = sqlite3_column_bytes(st, i);
		s = xcalloc(1, 2 * (size_t)n + 4);
		strcpy(s, "x'");
		for (j = 0; j < n; j++)
			sprintf(s + 2 + 2 * j, "%02x", b[j]);
		strcat(s, "'");
		return s;
	default:
		return xstrdup((const char *)sqlite3_column_text(st, i));
	}
}

/* Writes one CSV field, quoted when it must be (RFC 4180). */
static void
query_csv_field(const char *s)
{
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* Prints the result as CSV with a header line, CRLF line ends. */
static int
query_csv(sqlite3_stmt *st)
{
	char *v;
	int   i, n = sqlite3_column_count(st), rc;

	for (i = 0; i < n; i++) {
		if (i > 0)
			putchar(',');
		query_csv_field(sqlite3_column_name(st, i));
	}
	fputs("\r\n", stdout);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			if (i > 0)
				putchar(',');
			v = query_value(st, i);
			query_csv_field(v);
			free(v);
		}
		fputs("\r\n", stdout);
	}
	return rc;
}

/* A value as JSON: integers, reals, strings, null; blobs as x'hex'. */
static json_t *
query_json_value(sqlite3_stmt *st, int i)
{
	char   *s;
	json_t *v;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return json_null();
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	default:
		s = query_value(st, i);
		v = json_stringn(s, strlen(s));
		free(s);
		return v != NULL ? v : json_null();
	}
}

/* Prints the result as a JSON array of objects keyed by column name. */
static int
query_json(sqlite3_stmt *st)
{
	json_t *rows = json_array(), *row;
	int	i, n = sqlite3_column_count(st), rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		row = json_object();
		for (i = 0; i < n; i++)
			json_object_set_new(row, sqlite3_column_name(st, i),
			    query_json_value(st, i));
		json_array_append_new(rows, row);
	}
	if (rc == SQLITE_DONE) {
		json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	}
	json_decref(rows);
	return rc;
}

/* Replaces control characters, so one value stays on one line. */
static void
query_flatten(char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (iscntrl((unsigned char)*s))
			*s = ' ';
	}
}

/* Reads every row as text for the aligned layout. */
static int
query_read(sqlite3_stmt *st, struct query_rows *r)
{
	char *v;
	int   i, rc;

	r->ncols = sqlite3_column_count(st);
	r->numeric = xcalloc((size_t)r->ncols + 1, sizeof *r->numeric);
	for (i = 0; i < r->ncols; i++)
		r->numeric[i] = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->cells = xreallocarray(r->cells,
		    (r->nrows + 1) * (size_t)r->ncols + 1, sizeof *r->cells);
		for (i = 0; i < r->ncols; i++) {
			v = query_value(st, i);
			query_flatten(v);
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER &&
			    sqlite3_column_type(st, i) != SQLITE_FLOAT &&
			    sqlite3_column_type(st, i) != SQLITE_NULL)
				r->numeric[i] = 0;
			r->cells[r->nrows * (size_t)r->ncols + (size_t)i] = v;
		}
		r->nrows++;
	}
	return rc;
}

/* Prints one aligned cell padded to width w. */
static void
query_text_cell(const char *s, size_t w, int right, int last)
{
	size_t pad = w - render_width(s);

	if (right)
		printf("%*s", (int)pad, "");
	fputs(s, stdout);
	if (!right && !last)
		printf("%*s", (int)pad, "");
	if (!last)
		fputs("  ", stdout);
}

/* Prints rows under a header and a rule, numbers right-aligned. */
static void
query_text_print(sqlite3_stmt *st, const struct query_rows *r)
{
	size_t	   *w = xcalloc((size_t)r->ncols + 1, sizeof *w), i, len;
	const char *s;
	int	    j;

	for (j = 0; j < r->ncols; j++) {
		w[j] = render_width(sqlite3_column_name(st, j));
		for (i = 0; i < r->nrows; i++) {
			s = r->cells[i * (size_t)r->ncols + (size_t)j];
			len = render_width(s != NULL ? s : "NULL");
			w[j] = len > w[j] ? len : w[j];
		}
	}
	for (j = 0; j < r->ncols; j++)
		query_text_cell(sqlite3_column_name(st, j), w[j], r->numeric[j],
		    j == r->ncols - 1);
	putchar('\n');
	for (j = 0; j < r->ncols; j++) {
		for (i = 0; i < w[j]; i++)
			putchar('-');
		fputs(j == r->ncols - 1 ? "\n" : "  ", stdout);
	}
	for (i = 0; i < r->nrows; i++) {
		for (j = 0; j < r->ncols; j++) {
			s = r->cells[i * (size_t)r->ncols + (size_t)j];
			query_text_cell(s != NULL ? s : "NULL", w[j],
			    r->numeric[j], j == r->ncols - 1);
		}
		putchar('\n');
	}
	free(w);
}

/* Prints the result as aligned text. */
static int
query_text(sqlite3_stmt *st)
{
	struct query_rows r = { 0 };
	size_t		  i;
	int		  rc;

	if ((rc = query_read(st, &r)) == SQLITE_DONE)
		query_text_print(st, &r);
	for (i = 0; i < r.nrows * (size_t)r.ncols; i++)
		free(r.cells[i]);
	free(r.cells);
	free(r.numeric);
	return rc;
}

/* Returns 1 if s holds only spaces and semicolons. */
static int
query_blank(const char *s)
{
	return s == NULL || s[strspn(s, " \t\r\n;")] == '\0';
}

/* Prepares the one statement of sql and checks that it only reads. */
static int
query_prepare(sqlite3 *sq, const char *sql, sqlite3_stmt **st)
{
	const char *tail = NULL;

	if (sqlite3_prepare_v2(sq, sql, -1, st, &tail) != SQLITE_OK)
		return cli_error(CLI_EXIT_FAIL, "query: %s",
		    sqlite3_errmsg(sq));
	if (*st == NULL)
		return cli_usage_error("query: no SQL statement");
	if (!query_blank(tail))
		return cli_error(CLI_EXIT_USAGE,
		    "query: one statement at a "
		    "time; \"%s\" follows",
		    tail + strspn(tail, " \t\r\n;"));
	if (!sqlite3_stmt_readonly(*st))
		return cli_error(CLI_EXIT_USAGE,
		    "query: \"%s\" would write "
		    "to the database; hilab query only reads",
		    sql);
	return 0;
}

/* Parses the query options; *sql is the statement. */
static int
query_args(int argc, char **argv, const struct cli_options *o,
    enum query_format *fmt, const char **sql)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 }
	};
	int c;

	*fmt = o->json ? QUERY_JSON : QUERY_TEXT;
	optind = 0; /* reinitialize GNU getopt: options may follow JOB */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'f')
			return CLI_EXIT_USAGE;
		if (strcmp(optarg, "text") == 0)
			*fmt = QUERY_TEXT;
		else if (strcmp(optarg, "csv") == 0)
			*fmt = QUERY_CSV;
		else if (strcmp(optarg, "json") == 0)
			*fmt = QUERY_JSON;
		else
			return cli_usage_error("--format: \"%s\" is not text, "
					       "csv or json",
			    optarg);
	}
	if (argc - optind != 1)
		return cli_usage_error("usage: hilab query SQL [--format "
				       "text|csv|json]");
	*sql = argv[optind];
	return 0;
}

int
cmd_query(const struct cli_options *o, int argc, char **argv)
{
	enum query_format fmt;
	sqlite3_stmt	 *st = NULL;
	const char	 *sql = NULL;
	struct db	 *db;
	int		  rc;

	if ((rc = query_args(argc, argv, o, &fmt, &sql)) != 0)
		return rc;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	sqlite3_exec(db_sqlite(db), "PRAGMA query_only = ON", NULL, NULL, NULL);
	if ((rc = query_prepare(db_sqlite(db), sql, &st)) != 0)
		goto out;
	if (fmt == QUERY_CSV)
		rc = query_csv(st);
	else if (fmt == QUERY_JSON)
		rc = query_json(st);
	else
		rc = query_text(st);
	rc = rc == SQLITE_DONE ? CLI_EXIT_OK
			       : cli_error(CLI_EXIT_FAIL, "query: %s",
				     sqlite3_errmsg(db_sqlite(db)));
	if (rc == CLI_EXIT_OK && fflush(stdout) != 0)
		rc = cli_error(CLI_EXIT_FAIL, "query: write: output error");
out:
	sqlite3_finalize(st);
	db_close(db);
	return rc;
}
