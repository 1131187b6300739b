/* The bisects table: searches for the first bad commit, and their steps. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

/* The columns of a bisection, as bisect_read reads them. */
#define BISECT_SELECT                                                       \
	"SELECT id, name, spec, machine, benchmark, params, metric, tree, " \
	"commits, subjects, budget, confidence, state, result, why, "       \
	"sweep, change, created_at, ended_at FROM bisects "

/* Adds a running bisection from b; returns its id. */
int64_t
db_bisect_add(struct db *db, const struct db_bisect *b, char **cause)
{
	static const char sql[] =
	    "INSERT INTO bisects (name, spec, machine, benchmark, params, "
	    "metric, tree, commits, subjects, budget, confidence, why, sweep, "
	    "change, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	    "?10, ?11, ?12, ?13, ?14, ?15)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, b->name);
	db_bind_text(s, 2, b->spec);
	db_bind_text(s, 3, b->machine);
	db_bind_text(s, 4, b->benchmark);
	db_bind_text(s, 5, b->params != NULL ? b->params : "");
	db_bind_text(s, 6, b->metric);
	db_bind_text(s, 7, b->tree);
	db_bind_text(s, 8, b->commits);
	db_bind_text(s, 9, b->subjects);
	sqlite3_bind_int64(s, 10, b->budget);
	sqlite3_bind_double(s, 11, b->confidence);
	db_bind_text(s, 12, b->why);
	db_bind_opt(s, 13, b->sweep);
	db_bind_opt(s, 14, b->change);
	sqlite3_bind_int64(s, 15, db_now_ms());
	if (db_exec_stmt(db, s, "add bisection", cause) == -1)
		return -1;
	return sqlite3_last_insert_rowid(db->h);
}

/* Fills b from a row of BISECT_SELECT. */
static void
bisect_read(sqlite3_stmt *s, void *row)
{
	struct db_bisect *b = row;

	b->id = sqlite3_column_int64(s, 0);
	b->name = db_column_text(s, 1);
	b->spec = db_column_text(s, 2);
	b->machine = db_column_text(s, 3);
	b->benchmark = db_column_text(s, 4);
	b->params = db_column_text(s, 5);
	b->metric = db_column_text(s, 6);
	b->tree = db_column_text(s, 7);
	b->commits = db_column_text(s, 8);
	b->subjects = db_column_text(s, 9);
	b->budget = sqlite3_column_int64(s, 10);
	b->confidence = sqlite3_column_double(s, 11);
	b->state = db_column_text(s, 12);
	b->result = db_column_text(s, 13);
	b->why = db_column_text(s, 14);
	b->sweep = sqlite3_column_int64(s, 15);
	b->change = sqlite3_column_int64(s, 16);
	b->created = sqlite3_column_int64(s, 17);
	b->ended = sqlite3_column_int64(s, 18);
}

/* Frees the strings of a bisection. */
static void
bisect_clear(void *row)
{
	struct db_bisect *b = row;

	free(b->name);
	free(b->spec);
	free(b->machine);
	free(b->benchmark);
	free(b->params);
	free(b->metric);
	free(b->tree);
	free(b->commits);
	free(b->subjects);
	free(b->state);
	free(b->result);
	free(b->why);
}

/* The bisects table's rows for db_rows_read. */
static const struct db_rows bisect_rows = { sizeof(struct db_bisect),
	bisect_read, bisect_clear };

/* Reads the rows of a bound statement into a list of bisections. */
static int
bisect_list(struct db *db, sqlite3_stmt *s, struct db_bisect **out, size_t *n,
    char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &bisect_rows, "list bisections", &rows, n,
	    cause);
	*out = rows;
	return rc;
}

/* A bisection by id, or NULL with *cause set. */
struct db_bisect *
db_bisect_get(struct db *db, int64_t id, char **cause)
{
	static const char sql[] = BISECT_SELECT "WHERE id = ?1";
	struct db_bisect *v;
	sqlite3_stmt	 *s;
	size_t		  n;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if (bisect_list(db, s, &v, &n, cause) == -1)
		return NULL;
	if (n == 0) {
		causef(cause, "db \"%s\": no bisection %" PRId64, db->path, id);
		return NULL;
	}
	return v;
}

/* Every bisection by id, or the running ones only. */
int
db_bisect_list(struct db *db, bool running, struct db_bisect **out, size_t *n,
    char **cause)
{
	static const char all[] = BISECT_SELECT "ORDER BY id";
	static const char live[] =
	    BISECT_SELECT "WHERE state = 'running' ORDER BY id";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, running ? live : all, cause)) == NULL)
		return -1;
	return bisect_list(db, s, out, n, cause);
}

/* Records that job measures commits[commit] of bisection id. */
int
db_bisect_step_add(struct db *db, int64_t id, int64_t job, int64_t commit,
    char **cause)
{
	static const char sql[] = "INSERT INTO bisect_steps (bisect, job, "
				  "commit_index) VALUES (?1, ?2, ?3)";
	sqlite3_stmt	 *s;
	int		  rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, job);
	sqlite3_bind_int64(s, 3, commit);
	if ((rc = sqlite3_step(s)) != SQLITE_DONE) {
		rc = sqlite3_extended_errcode(db->h);
		if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			causef(cause,
			    "db \"%s\": bisection %" PRId64 ": job %" PRId64
			    ": already a step",
			    db->path, id, job);
		else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
			causef(cause,
			    "db \"%s\": bisection %" PRId64 ", job %" PRId64
			    ": no such bisection or job",
			    db->path, id, job);
		else
			db_fail(db, cause, "add bisection step");
		sqlite3_reset(s);
		return -1;
	}
	sqlite3_reset(s);
	return 0;
}

/* Fills a step from a row of (job, commit_index). */
static void
step_read(sqlite3_stmt *s, void *row)
{
	struct db_bisect_step *p = row;

	p->job = sqlite3_column_int64(s, 0);
	p->commit = sqlite3_column_int64(s, 1);
}

/* A step holds no strings. */
static void
step_clear(void *row)
{
	(void)row;
}

/* The bisect_steps table's rows for db_rows_read. */
static const struct db_rows step_rows = { sizeof(struct db_bisect_step),
	step_read, step_clear };

/* The steps of a bisection, by job id. */
int
db_bisect_steps(struct db *db, int64_t id, struct db_bisect_step **out,
    size_t *n, char **cause)
{
	static const char sql[] = "SELECT job, commit_index FROM bisect_steps "
				  "WHERE bisect = ?1 ORDER BY job";
	sqlite3_stmt	 *s;
	void		 *rows;
	int		  rc;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = db_rows_read(db, s, &step_rows, "list bisection steps", &rows, n,
	    cause);
	*out = rows;
	return rc;
}

/* Whether bisection id exists: 1, 0, or -1. */
static int
bisect_exists(struct db *db, int64_t id, char **cause)
{
	static const char sql[] = "SELECT 1 FROM bisects WHERE id = ?1";
	sqlite3_stmt	 *s;
	int		  rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, cause, "read bisection");
	return rc == SQLITE_ROW;
}

/* Ends a running bisection; 1 if it was running, 0 if it had ended. */
int
db_bisect_end(struct db *db, int64_t id, const char *state, const char *result,
    const char *why, char **cause)
{
	static const char sql[] =
	    "UPDATE bisects SET state = ?2, result = ?3, why = ?4, "
	    "ended_at = ?5 WHERE id = ?1 AND state = 'running'";
	sqlite3_stmt *s;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_text(s, 2, state);
	db_bind_text(s, 3, result);
	db_bind_text(s, 4, why);
	sqlite3_bind_int64(s, 5, db_now_ms());
	if (db_exec_stmt(db, s, "end bisection", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) != 0)
		return 1;
	if ((rc = bisect_exists(db, id, cause)) == 0)
		return causef(cause, "db \"%s\": no bisection %" PRId64,
		    db->path, id);
	return rc == 1 ? 0 : -1;
}

/* Logs an event about a bisection; job may be 0. */
int
db_bisect_event_add(struct db *db, int64_t id, int64_t job, enum db_level level,
    char **cause, const char *fmt, ...)
{
	struct db_event_at at = { .job = job, .bisect = id };
	va_list		   ap;
	int		   rc;

	va_start(ap, fmt);
	rc = db_event_vinsert(db, &at, level, cause, fmt, ap);
	va_end(ap);
	return rc;
}

/* The events of a bisection, oldest first. */
int
db_bisect_events(struct db *db, int64_t id, struct db_event **out, size_t *n,
    char **cause)
{
	static const char sql[] =
	    DB_EVENT_SELECT "WHERE bisect = ?1 ORDER BY id";

	return db_events_of(db, sql, id, out, n, cause);
}

/* Frees a bisection from db_bisect_get; accepts NULL. */
void
db_bisect_free(struct db_bisect *b)
{
	if (b == NULL)
		return;
	bisect_clear(b);
	free(b);
}

/* Frees a list from db_bisect_list. */
void
db_bisect_list_free(struct db_bisect *v, size_t n)
{
	db_rows_free(&bisect_rows, v, n);
}
