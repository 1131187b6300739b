/* State transitions shared by jobs and runs. */
#include <inttypes.h>
#include <stdlib.h>

#include "common/cause.h"
#include "db/db_int.h"

/* Explains why row id of t could not go to state to; returns -1. */
int
db_state_refused(struct db *db, const struct db_state_table *t, int64_t id,
    enum db_state to, char **cause)
{
	sqlite3_stmt *s;
	int	      rc;

	if ((s = db_stmt(db, t->state_sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		causef(cause,
		    "db \"%s\": %s %" PRId64 ": cannot go from %s to %s",
		    db->path, t->name, id,
		    (const char *)sqlite3_column_text(s, 0), db_state_name(to));
	else if (rc == SQLITE_DONE)
		causef(cause, "db \"%s\": no %s %" PRId64, db->path, t->name,
		    id);
	else
		db_fail(db, cause, "read state");
	sqlite3_reset(s);
	return -1;
}

/* Binds the (at most two) states allowed to move to `to` as ?3 and ?4. */
static void
state_bind_from(sqlite3_stmt *s, unsigned from)
{
	int i, n = 3;

	sqlite3_bind_null(s, 3);
	sqlite3_bind_null(s, 4);
	for (i = 0; i < DB_NSTATES && n <= 4; i++)
		if (from & (1U << i))
			db_bind_text(s, n++, db_state_name(i));
}

/* Moves row id of t to state to if the transition is allowed. */
int
db_state_set(struct db *db, const struct db_state_table *t, int64_t id,
    enum db_state to, const char *error, char **cause)
{
	sqlite3_stmt *s;

	if ((unsigned)to >= DB_NSTATES)
		return causef(cause, "db \"%s\": %s %" PRId64 ": bad state %d",
		    db->path, t->name, id, (int)to);
	if ((s = db_stmt(db, t->update_sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_text(s, 2, db_state_name(to));
	state_bind_from(s, t->from[to]);
	db_bind_text(s, 5, error);
	sqlite3_bind_int64(s, 6, db_now_ms());
	if (db_exec_stmt(db, s, "set state", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return db_state_refused(db, t, id, to, cause);
	return 0;
}
