/* The events table: what the controller did and saw, per job and run. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* Inserts one event; job, run and sweep may be 0 and machine NULL. */
int
db_event_insert(struct db *db, const struct db_event_at *at,
    enum db_level level, const char *msg, char **cause)
{
	static const char sql[] =
	    "INSERT INTO events (time, job, run, sweep, machine, level, "
	    "message, bisect) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, db_now_ms());
	db_bind_opt(s, 2, at->job);
	db_bind_opt(s, 3, at->run);
	db_bind_opt(s, 4, at->sweep);
	db_bind_text(s, 5, at->machine);
	db_bind_text(s, 6, db_level_name(level));
	db_bind_text(s, 7, msg);
	db_bind_opt(s, 8, at->bisect);
	return db_exec_stmt(db, s, "add event", cause);
}

/* Inserts one event, its message formatted from fmt and ap. */
int
db_event_vinsert(struct db *db, const struct db_event_at *at,
    enum db_level level, char **cause, const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap);
	int   rc = db_event_insert(db, at, level, msg, cause);

	free(msg);
	return rc;
}

/* Logs an event; job and run may be 0 and machine NULL. */
int
db_event_add(struct db *db, int64_t job, int64_t run, const char *machine,
    enum db_level level, char **cause, const char *fmt, ...)
{
	struct db_event_at at = { job, run, 0, machine, 0 };
	va_list		   ap;
	int		   rc;

	va_start(ap, fmt);
	rc = db_event_vinsert(db, &at, level, cause, fmt, ap);
	va_end(ap);
	return rc;
}

static void event_clear(void *);

/* Fills e from a row of DB_EVENT_SELECT. */
static void
event_read(sqlite3_stmt *s, void *row)
{
	struct db_event *e = row;
	const char	*level = (const char *)sqlite3_column_text(s, 5);
	int		 i;

	e->id = sqlite3_column_int64(s, 0);
	e->time = sqlite3_column_int64(s, 1);
	e->job = sqlite3_column_int64(s, 2);
	e->run = sqlite3_column_int64(s, 3);
	e->machine = db_column_text(s, 4);
	e->level = DB_INFO;
	for (i = DB_DEBUG; i <= DB_ERROR; i++)
		if (level != NULL && strcmp(level, db_level_name(i)) == 0)
			e->level = i;
	e->message = db_column_text(s, 6);
}

/* The events table's rows for db_rows_read. */
static const struct db_rows event_rows = { sizeof(struct db_event), event_read,
	event_clear };

/* Reads every row of a bound DB_EVENT_SELECT statement into *out. */
int
db_event_collect(struct db *db, sqlite3_stmt *s, struct db_event **out,
    size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &event_rows, "list events", &rows, n, cause);
	*out = rows;
	return rc;
}

/* The events a static DB_EVENT_SELECT statement selects for ?1 = id. */
int
db_events_of(struct db *db, const char *sql, int64_t id, struct db_event **out,
    size_t *n, char **cause)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return db_event_collect(db, s, out, n, cause);
}

/* Events with id > after_id, of one job (or all when job is 0). */
int
db_event_list(struct db *db, int64_t job, int64_t after_id,
    struct db_event **out, size_t *n, char **cause)
{
	static const char all[] =
	    DB_EVENT_SELECT "WHERE id > ?2 AND ?1 = 0 ORDER BY id";
	static const char one[] =
	    DB_EVENT_SELECT "WHERE job = ?1 AND id > ?2 ORDER BY id";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, job == 0 ? all : one, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_int64(s, 2, after_id);
	return db_event_collect(db, s, out, n, cause);
}

/* Frees the strings of e. */
static void
event_clear(void *row)
{
	struct db_event *e = row;

	free(e->machine);
	free(e->message);
}

/* Frees a list from db_event_list. */
void
db_event_list_free(struct db_event *e, size_t n)
{
	db_rows_free(&event_rows, e, n);
}
