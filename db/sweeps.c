/* The sweeps table: job files queued on a schedule, and their jobs. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cause.h"
#include "common/cron.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

/* A sweep with the state of its last job; the WHERE clause is appended. */
#define SWEEP_SELECT                                                 \
	"SELECT s.id, s.name, s.file, s.interval_ms, s.at_minute, "  \
	"s.enabled, s.next_at, s.last_job, j.state, s.checked_job, " \
	"s.created_at, s.cron, s.confirm_rounds, s.mbox, "           \
	"s.mail_command, s.bisect_budget "                           \
	"FROM sweeps s LEFT JOIN jobs j ON j.id = s.last_job "

/* Columns of an event, as db_event_list reads them. */
/* Start of the local day of now (ms) plus at_minute minutes. */
static int64_t
sweep_local_anchor(int at_minute, int64_t now)
{
	struct tm tm;
	time_t	  t = (time_t)(now / 1000);

	localtime_r(&t, &tm);
	tm.tm_hour = at_minute / 60;
	tm.tm_min = at_minute % 60;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm) * 1000;
}

/* The first slot after now; see db/db.h. */
int64_t
db_sweep_next_at(int64_t interval_ms, int at_minute, int64_t anchor,
    int64_t now)
{
	int64_t d, k;

	if (interval_ms <= 0)
		return now;
	if (at_minute >= 0)
		anchor = sweep_local_anchor(at_minute, now);
	d = now - anchor;
	k = d / interval_ms;
	if (d < 0 && d % interval_ms != 0)
		k--;
	return anchor + (k + 1) * interval_ms;
}

/* The slot after now of w's schedule, cron or interval; see db/db.h. */
int64_t
db_sweep_next(const struct db_sweep *w, int64_t now)
{
	struct cron c;
	int64_t	    next;

	if (w->cron == NULL)
		return db_sweep_next_at(w->interval_ms, w->at_minute,
		    w->next_at, now);
	if (cron_parse(w->cron, &c, NULL) == -1 ||
	    (next = cron_next(&c, now)) == -1)
		return INT64_MAX;
	return next;
}

/* Adds an enabled sweep first due at next_at; returns its id. */
int64_t
db_sweep_add(struct db *db, const struct db_sweep *w, char **cause)
{
	static const char sql[] =
	    "INSERT INTO sweeps (name, file, "
	    "interval_ms, at_minute, next_at, created_at, cron, "
	    "confirm_rounds, mbox, mail_command, bisect_budget) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, w->name);
	db_bind_text(s, 2, w->file);
	if (w->cron == NULL)
		sqlite3_bind_int64(s, 3, w->interval_ms);
	if (w->at_minute >= 0)
		sqlite3_bind_int(s, 4, w->at_minute);
	sqlite3_bind_int64(s, 5, w->next_at);
	sqlite3_bind_int64(s, 6, db_now_ms());
	db_bind_text(s, 7, w->cron);
	sqlite3_bind_int(s, 8, w->confirm_rounds > 0 ? w->confirm_rounds : 3);
	db_bind_text(s, 9, w->mbox);
	db_bind_text(s, 10, w->mail_command);
	sqlite3_bind_int64(s, 11, w->bisect_budget);
	if (sqlite3_step(s) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(db->h) == SQLITE_CONSTRAINT_UNIQUE)
			causef(cause, "db \"%s\": sweep \"%s\": already exists",
			    db->path, w->name);
		else
			db_fail(db, cause, "add sweep");
		sqlite3_reset(s);
		return -1;
	}
	sqlite3_reset(s);
	return sqlite3_last_insert_rowid(db->h);
}

static void sweep_clear(void *);

/* Fills w from a row of SWEEP_SELECT. */
static void
sweep_read(sqlite3_stmt *s, void *row)
{
	struct db_sweep *w = row;
	const char	*state = (const char *)sqlite3_column_text(s, 8);

	w->id = sqlite3_column_int64(s, 0);
	w->name = db_column_text(s, 1);
	w->file = db_column_text(s, 2);
	w->interval_ms = sqlite3_column_int64(s, 3);
	w->at_minute = sqlite3_column_type(s, 4) == SQLITE_NULL
	    ? -1
	    : sqlite3_column_int(s, 4);
	w->enabled = sqlite3_column_int(s, 5) != 0;
	w->next_at = sqlite3_column_int64(s, 6);
	w->last_job = sqlite3_column_int64(s, 7);
	if (state == NULL || db_state_parse(state, &w->last_state) == -1)
		w->last_state = DB_QUEUED;
	w->checked_job = sqlite3_column_int64(s, 9);
	w->created_at = sqlite3_column_int64(s, 10);
	w->cron = db_column_text(s, 11);
	w->confirm_rounds = sqlite3_column_int(s, 12);
	w->mbox = db_column_text(s, 13);
	w->mail_command = db_column_text(s, 14);
	w->bisect_budget = sqlite3_column_int64(s, 15);
}

/* The sweeps table's rows for db_rows_read. */
static const struct db_rows sweep_rows = { sizeof(struct db_sweep), sweep_read,
	sweep_clear };

/* Reads the rows of a bound statement into a list of sweeps. */
static int
sweep_list(struct db *db, sqlite3_stmt *s, const char *what,
    struct db_sweep **out, size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &sweep_rows, what, &rows, n, cause);
	*out = rows;
	return rc;
}

/* Returns a sweep by name, or NULL with *cause set. */
struct db_sweep *
db_sweep_get(struct db *db, const char *name, char **cause)
{
	static const char sql[] = SWEEP_SELECT "WHERE s.name = ?1";
	struct db_sweep	 *v;
	sqlite3_stmt	 *s;
	size_t		  n;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	db_bind_text(s, 1, name);
	if (sweep_list(db, s, "get sweep", &v, &n, cause) == -1)
		return NULL;
	if (n == 0) {
		causef(cause, "db \"%s\": sweep \"%s\": no such sweep",
		    db->path, name);
		return NULL;
	}
	return v;
}

/* Every sweep, by name. */
int
db_sweep_list(struct db *db, struct db_sweep **out, size_t *n, char **cause)
{
	static const char sql[] = SWEEP_SELECT "ORDER BY s.name";
	sqlite3_stmt	 *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	return sweep_list(db, s, "list sweeps", out, n, cause);
}

/* Enabled sweeps with next_at <= now, most overdue first. */
int
db_sweep_due(struct db *db, int64_t now, struct db_sweep **out, size_t *n,
    char **cause)
{
	static const char sql[] = SWEEP_SELECT
	    "WHERE s.enabled = 1 AND s.next_at <= ?1 ORDER BY s.next_at, s.id";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, now);
	return sweep_list(db, s, "list sweeps", out, n, cause);
}

/* Runs a statement on the sweep named name; fails if there is none. */
static int
sweep_update_named(struct db *db, sqlite3_stmt *s, const char *name,
    const char *what, char **cause)
{
	if (db_exec_stmt(db, s, what, cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": sweep \"%s\": no such sweep",
		    db->path, name);
	return 0;
}

/* Removes a sweep; its jobs and events stay, unlinked. */
int
db_sweep_remove(struct db *db, const char *name, char **cause)
{
	static const char sql[] = "DELETE FROM sweeps WHERE name = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	return sweep_update_named(db, s, name, "remove sweep", cause);
}

/* Pauses or resumes a sweep. */
int
db_sweep_set_enabled(struct db *db, const char *name, bool enabled,
    char **cause)
{
	static const char sql[] = "UPDATE sweeps SET enabled = ?2 "
				  "WHERE name = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	sqlite3_bind_int(s, 2, enabled ? 1 : 0);
	return sweep_update_named(db, s, name, "enable sweep", cause);
}

/* Sets one integer column of sweep id (sql: ?1 id, ?2 value). */
static int
sweep_set_int(struct db *db, const char *sql, int64_t id, int64_t v,
    const char *what, char **cause)
{
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_opt(s, 2, v);
	if (db_exec_stmt(db, s, what, cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": no sweep %" PRId64, db->path,
		    id);
	return 0;
}

/* Moves a sweep's next run. */
int
db_sweep_set_next(struct db *db, int64_t id, int64_t next_at, char **cause)
{
	static const char sql[] = "UPDATE sweeps SET next_at = ?2 "
				  "WHERE id = ?1";

	return sweep_set_int(db, sql, id, next_at, "set sweep next run", cause);
}

/* Records that the sweep's jobs up to job have been compared. */
int
db_sweep_set_checked(struct db *db, int64_t id, int64_t job, char **cause)
{
	static const char sql[] = "UPDATE sweeps SET checked_job = ?2 "
				  "WHERE id = ?1";

	return sweep_set_int(db, sql, id, job, "set sweep checked job", cause);
}

/* Makes job the last job of sweep id and links it to the sweep. */
static int
sweep_link(struct db *db, int64_t id, int64_t job, int64_t next_at,
    char **cause)
{
	static const char sweep_sql[] =
	    "UPDATE sweeps SET "
	    "last_job = ?2, next_at = ?3 WHERE id = ?1";
	static const char link_sql[] = "UPDATE jobs SET sweep = ?1 "
				       "WHERE id = ?2";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sweep_sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, job);
	sqlite3_bind_int64(s, 3, next_at);
	if (db_exec_stmt(db, s, "queue sweep", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": no sweep %" PRId64, db->path,
		    id);
	if ((s = db_stmt(db, link_sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, job);
	return db_exec_stmt(db, s, "link sweep job", cause);
}

/* Queues a job for a sweep in one transaction; returns the job id. */
int64_t
db_sweep_queue(struct db *db, int64_t id, const char *name, const char *file,
    const char *spec, int64_t next_at, char **cause)
{
	int64_t job;

	if (db_begin(db, cause) == -1)
		return -1;
	if ((job = db_job_insert(db, name, file, spec, cause)) == -1 ||
	    sweep_link(db, id, job, next_at, cause) == -1) {
		db_rollback(db, NULL);
		return -1;
	}
	if (db_commit(db, cause) == -1) {
		db_rollback(db, NULL);
		return -1;
	}
	return job;
}

/* The ids of a sweep's jobs, newest first. */
static int
sweep_job_ids(struct db *db, int64_t id, int64_t **ids, size_t *n, char **cause)
{
	static const char sql[] = "SELECT id FROM jobs WHERE sweep = ?1 "
				  "ORDER BY id DESC";
	sqlite3_stmt	 *s;
	int		  rc;

	*ids = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*ids = xreallocarray(*ids, *n + 1, sizeof **ids);
		(*ids)[(*n)++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return db_fail(db, cause, "list sweep jobs");
	}
	return 0;
}

/* The jobs a sweep queued, newest first, with their run counts. */
int
db_sweep_jobs(struct db *db, int64_t id, struct db_job **out, size_t *n,
    char **cause)
{
	struct db_job *j;
	int64_t	      *ids;
	size_t	       i, nids;
	int	       rc = -1;

	*out = NULL;
	*n = 0;
	if (sweep_job_ids(db, id, &ids, &nids, cause) == -1)
		return -1;
	*out = xcalloc(nids ? nids : 1, sizeof **out);
	for (i = 0; i < nids; i++) {
		if ((j = db_job_get(db, ids[i], cause)) == NULL)
			goto out;
		(*out)[(*n)++] = *j;
		free(j);
	}
	rc = 0;
out:
	if (rc == -1) {
		db_job_list_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	free(ids);
	return rc;
}

/* Logs an event about a sweep; job may be 0. */
int
db_sweep_event_add(struct db *db, int64_t id, int64_t job, enum db_level level,
    char **cause, const char *fmt, ...)
{
	struct db_event_at at = { job, 0, id, NULL };
	va_list		   ap;
	int		   rc;

	va_start(ap, fmt);
	rc = db_event_vinsert(db, &at, level, cause, fmt, ap);
	va_end(ap);
	return rc;
}

/* The events of a sweep, oldest first. */
int
db_sweep_events(struct db *db, int64_t id, struct db_event **out, size_t *n,
    char **cause)
{
	static const char sql[] =
	    DB_EVENT_SELECT "WHERE sweep = ?1 ORDER BY id";

	return db_events_of(db, sql, id, out, n, cause);
}

/* Frees the strings of w. */
static void
sweep_clear(void *row)
{
	struct db_sweep *w = row;

	free(w->name);
	free(w->file);
	free(w->cron);
	free(w->mbox);
	free(w->mail_command);
}

/* Frees a sweep from db_sweep_get; accepts NULL. */
void
db_sweep_free(struct db_sweep *w)
{
	if (w == NULL)
		return;
	sweep_clear(w);
	free(w);
}

/* Frees a list from db_sweep_list or db_sweep_due. */
void
db_sweep_list_free(struct db_sweep *w, size_t n)
{
	db_rows_free(&sweep_rows, w, n);
}
