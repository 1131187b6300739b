/* The change points sweeps found in their series (table sweep_changes). */
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "db/db_int.h"

/* The columns of a change, as change_read reads them. */
#define CHANGE_SELECT                                                    \
	"SELECT id, sweep, machine, benchmark, params, metric, job, "    \
	"before_job, found_job, before, after, effect_pct, p, verdict, " \
	"state, created_at, confirm_job, confirm_p, "                    \
	"confirm_effect_pct FROM sweep_changes "

/* Records a suspected change; returns its id. */
int64_t
db_sweep_change_add(struct db *db, const struct db_sweep_change *c,
    char **cause)
{
	static const char sql[] =
	    "INSERT INTO sweep_changes (sweep, machine, benchmark, params, "
	    "metric, job, before_job, found_job, before, after, effect_pct, "
	    "p, verdict, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
	    "?9, ?10, ?11, ?12, ?13, ?14)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, c->sweep);
	db_bind_text(s, 2, c->machine);
	db_bind_text(s, 3, c->benchmark);
	db_bind_text(s, 4, c->params);
	db_bind_text(s, 5, c->metric);
	sqlite3_bind_int64(s, 6, c->job);
	db_bind_opt(s, 7, c->before_job);
	db_bind_opt(s, 8, c->found_job);
	sqlite3_bind_double(s, 9, c->before);
	sqlite3_bind_double(s, 10, c->after);
	sqlite3_bind_double(s, 11, c->effect_pct);
	sqlite3_bind_double(s, 12, c->p);
	db_bind_text(s, 13, c->verdict);
	sqlite3_bind_int64(s, 14, db_now_ms());
	if (db_exec_stmt(db, s, "add sweep change", cause) == -1)
		return -1;
	return sqlite3_last_insert_rowid(db->h);
}

/* The first job after the newest change of a series, 0 if none. */
int64_t
db_sweep_change_last(struct db *db, int64_t sweep, const char *machine,
    const char *benchmark, const char *params, const char *metric, char **cause)
{
	static const char sql[] =
	    "SELECT MAX(job) FROM sweep_changes WHERE sweep = ?1 AND "
	    "machine = ?2 AND benchmark = ?3 AND params = ?4 AND metric = ?5";
	sqlite3_stmt *s;
	int64_t	      job = 0;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, sweep);
	db_bind_text(s, 2, machine);
	db_bind_text(s, 3, benchmark);
	db_bind_text(s, 4, params);
	db_bind_text(s, 5, metric);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		job = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW)
		return db_fail(db, cause, "read sweep changes");
	return job;
}

/* Fills a change from a row of CHANGE_SELECT. */
static void
change_read(sqlite3_stmt *s, void *row)
{
	struct db_sweep_change *c = row;

	c->id = sqlite3_column_int64(s, 0);
	c->sweep = sqlite3_column_int64(s, 1);
	c->machine = db_column_text(s, 2);
	c->benchmark = db_column_text(s, 3);
	c->params = db_column_text(s, 4);
	c->metric = db_column_text(s, 5);
	c->job = sqlite3_column_int64(s, 6);
	c->before_job = sqlite3_column_int64(s, 7);
	c->found_job = sqlite3_column_int64(s, 8);
	c->before = sqlite3_column_double(s, 9);
	c->after = sqlite3_column_double(s, 10);
	c->effect_pct = sqlite3_column_double(s, 11);
	c->p = sqlite3_column_double(s, 12);
	c->verdict = db_column_text(s, 13);
	c->state = db_column_text(s, 14);
	c->created_at = sqlite3_column_int64(s, 15);
	c->confirm_job = sqlite3_column_int64(s, 16);
	c->confirm_p = sqlite3_column_double(s, 17);
	c->confirm_effect_pct = sqlite3_column_double(s, 18);
}

/* Frees the strings of a change. */
static void
change_clear(void *row)
{
	struct db_sweep_change *c = row;

	free(c->machine);
	free(c->benchmark);
	free(c->params);
	free(c->metric);
	free(c->verdict);
	free(c->state);
}

/* The sweep_changes table's rows for db_rows_read. */
static const struct db_rows change_rows = { sizeof(struct db_sweep_change),
	change_read, change_clear };

/* Reads the changes a statement (its ?1 bound) selects. */
static int
change_list(struct db *db, const char *sql, int64_t arg,
    struct db_sweep_change **out, size_t *n, char **cause)
{
	sqlite3_stmt *s;
	void	     *rows;
	int	      rc;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, arg);
	rc = db_rows_read(db, s, &change_rows, "list sweep changes", &rows, n,
	    cause);
	*out = rows;
	return rc;
}

/* The changes of a sweep, oldest first. */
int
db_sweep_changes(struct db *db, int64_t sweep, struct db_sweep_change **out,
    size_t *n, char **cause)
{
	return change_list(db, CHANGE_SELECT "WHERE sweep = ?1 ORDER BY id",
	    sweep, out, n, cause);
}

/* Runs a bound state UPDATE; -1 naming change id and from if no row moved. */
static int
change_step(struct db *db, sqlite3_stmt *s, int64_t id, const char *from,
    char **cause)
{
	if (db_exec_stmt(db, s, "set sweep change state", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": sweep change %lld: not %s",
		    db->path, (long long)id, from);
	return 0;
}

/* suspected -> confirming with its A/B job; see db/db.h. */
int
db_sweep_change_confirming(struct db *db, int64_t id, int64_t job, char **cause)
{
	static const char sql[] =
	    "UPDATE sweep_changes SET state = 'confirming', confirm_job = ?2 "
	    "WHERE id = ?1 AND state = 'suspected'";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, job);
	return change_step(db, s, id, "suspected", cause);
}

/* confirming -> confirmed, rejected or failed; see db/db.h. */
int
db_sweep_change_decide(struct db *db, int64_t id, const char *state, double p,
    double effect_pct, char **cause)
{
	static const char sql[] =
	    "UPDATE sweep_changes SET state = ?2, confirm_p = CASE WHEN ?2 = "
	    "'failed' THEN NULL ELSE ?3 END, confirm_effect_pct = CASE WHEN "
	    "?2 = 'failed' THEN NULL ELSE ?4 END WHERE id = ?1 AND state = "
	    "'confirming' AND ?2 IN ('confirmed', 'rejected', 'failed')";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_text(s, 2, state);
	sqlite3_bind_double(s, 3, p);
	sqlite3_bind_double(s, 4, effect_pct);
	return change_step(db, s, id, "confirming", cause);
}

/* Frees a list from db_sweep_changes. */
void
db_sweep_change_list_free(struct db_sweep_change *v, size_t n)
{
	db_rows_free(&change_rows, v, n);
}
