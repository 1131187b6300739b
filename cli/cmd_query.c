/*
 * hilab query: one read-only SQL statement of the user's against the
 * database (or a copy of it), printed by report/render_query.h as aligned
 * text, CSV (RFC 4180) or JSON.  The only SQL outside db/: the database is
 * opened read-only and a statement that would write is refused before it
 * runs (sqlite3_stmt_readonly).  The views v_runs and v_samples
 * (db/SCHEMA.md) are the documented starting points.  A statement is
 * stopped after --timeout (30 s) or past --max-rows (10^6) rows, with
 * nothing printed: a runaway recursive query ends, and the text format,
 * which aligns every row, stays bounded.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "report/render_query.h"

#define QUERY_TIMEOUT_MS 30000
#define QUERY_MAX_ROWS	 1000000
#define QUERY_TICK_OPS	 10000 /* virtual machine steps between checks */

/* The limits of one statement, and which one stopped it. */
struct query_limits {
	int64_t	  deadline; /* clock_now_ms() */
	int64_t	  timeout;  /* ms */
	long long max_rows; /* 0: no limit */
	bool	  timed_out;
};

/* sqlite3's progress handler: nonzero interrupts past the deadline. */
static int
query_tick(void *arg)
{
	struct query_limits *l = arg;

	if (clock_now_ms() < l->deadline)
		return 0;
	l->timed_out = true;
	return 1;
}

/* A column of the current row as a value for the renderer. */
static void
query_value(sqlite3_stmt *st, int i, struct render_value *v)
{
	memset(v, 0, sizeof *v);
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		v->type = RENDER_VALUE_NULL;
		return;
	case SQLITE_BLOB:
		v->type = RENDER_VALUE_BLOB;
		v->text = sqlite3_column_blob(st, i);
		v->len = (size_t)sqlite3_column_bytes(st, i);
		return;
	case SQLITE_INTEGER:
		v->type = RENDER_VALUE_INTEGER;
		v->integer = sqlite3_column_int64(st, i);
		break;
	case SQLITE_FLOAT:
		v->type = RENDER_VALUE_REAL;
		v->real = sqlite3_column_double(st, i);
		break;
	default:
		v->type = RENDER_VALUE_TEXT;
	}
	v->text = (const char *)sqlite3_column_text(st, i);
}

/*
 * Steps through the statement, handing every row to the renderer; past
 * the row limit returns SQLITE_FULL, printing nothing.
 */
static int
query_run(sqlite3_stmt *st, enum render_query_format fmt,
    const struct query_limits *l)
{
	struct render_query *q;
	struct render_value *v;
	const char	   **names;
	int		     i, n = sqlite3_column_count(st), rc;
	long long	     rows = 0;

	names = xcalloc((size_t)n + 1, sizeof *names);
	v = xcalloc((size_t)n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		names[i] = sqlite3_column_name(st, i);
	q = render_query_new(fmt, stdout, names, n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->max_rows > 0 && ++rows > l->max_rows) {
			rc = SQLITE_FULL;
			break;
		}
		for (i = 0; i < n; i++)
			query_value(st, i, &v[i]);
		render_query_row(q, v);
	}
	if (rc == SQLITE_DONE)
		render_query_end(q);
	else
		render_query_free(q);
	free(names);
	free(v);
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
		return cli_error(CLI_EXIT_USAGE, "query: no SQL statement");
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

/* Says why the statement ended before its last row. */
static int
query_failed(sqlite3 *sq, int step, const struct query_limits *l)
{
	char buf[32];

	if (step == SQLITE_FULL)
		return cli_error(CLI_EXIT_FAIL,
		    "query: more than %lld rows; narrow it, or raise "
		    "--max-rows",
		    l->max_rows);
	if (l->timed_out)
		return cli_error(CLI_EXIT_FAIL,
		    "query: stopped after %s; narrow it, or raise --timeout",
		    units_format_duration(l->timeout, buf, sizeof buf));
	return cli_error(CLI_EXIT_FAIL, "query: %s", sqlite3_errmsg(sq));
}

/*
 * hilab query SQL [--format FORMAT] [--timeout DURATION] [--max-rows N]:
 * the rows of one read-only statement.
 */
int
cmd_query(const struct cli_options *o, const struct args *a)
{
	enum render_query_format fmt =
	    o->json ? RENDER_QUERY_JSON : RENDER_QUERY_TEXT;
	struct query_limits l = { 0 };
	sqlite3_stmt	   *st = NULL;
	const char	   *sql = a->pos[0].text;
	struct db	   *db;
	int		    rc, step;

	if (args_get(a, "format") != NULL)
		render_query_format_parse(args_text(a, "format", NULL), &fmt);
	l.timeout = args_num(a, "timeout", QUERY_TIMEOUT_MS);
	l.max_rows = args_num(a, "max-rows", QUERY_MAX_ROWS);
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	sqlite3_exec(db_sqlite(db), "PRAGMA query_only = ON", NULL, NULL, NULL);
	l.deadline = clock_now_ms() + l.timeout;
	sqlite3_progress_handler(db_sqlite(db), QUERY_TICK_OPS, query_tick, &l);
	if ((rc = query_prepare(db_sqlite(db), sql, &st)) != 0)
		goto out;
	if ((step = query_run(st, fmt, &l)) != SQLITE_DONE)
		rc = query_failed(db_sqlite(db), step, &l);
	if (rc == CLI_EXIT_OK && fflush(stdout) != 0)
		rc = cli_error(CLI_EXIT_FAIL, "query: write: output error");
out:
	sqlite3_finalize(st);
	db_close(db);
	return rc;
}
