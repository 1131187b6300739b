/* Results of runs and the resume list of interrupted runs. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* Stores a result unless (run, seq) is there: 1 new, 0 existed, -1. */
int
db_run_result_insert(struct db *db, const struct db_result *r, char **cause)
{
	static const char sql[] =
	    "INSERT OR IGNORE INTO run_results "
	    "(run, seq, warmup, exit_status, timed_out, wall_ns, utime_us, "
	    "stime_us, maxrss_kb, output, truncated) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, r->run);
	sqlite3_bind_int64(s, 2, r->seq);
	sqlite3_bind_int(s, 3, r->warmup);
	sqlite3_bind_int(s, 4, r->exit_status);
	sqlite3_bind_int(s, 5, r->timed_out);
	sqlite3_bind_int64(s, 6, r->wall_ns);
	sqlite3_bind_int64(s, 7, r->utime_us);
	sqlite3_bind_int64(s, 8, r->stime_us);
	sqlite3_bind_int64(s, 9, r->maxrss_kb);
	if (r->output != NULL)
		sqlite3_bind_blob64(s, 10, r->output, r->output_len,
		    SQLITE_STATIC);
	sqlite3_bind_int(s, 11, r->truncated);
	if (db_exec_stmt(db, s, "insert run result", cause) == -1)
		return -1;
	return sqlite3_changes(db->h) > 0;
}

/* Runs left running by a stopped controller, with their last result. */
int
db_run_list_interrupted(struct db *db, struct db_interrupted **out, size_t *n,
    char **cause)
{
	static const char sql[] =
	    "SELECT r.id, r.job, r.machine, "
	    "r.agent_run_id, (SELECT max(seq) FROM run_results x "
	    "WHERE x.run = r.id) FROM runs r WHERE r.state = 'running' "
	    "ORDER BY r.id";
	struct db_interrupted *i;
	sqlite3_stmt	      *s;
	int		       rc;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		i = &(*out)[(*n)++];
		i->run = sqlite3_column_int64(s, 0);
		i->job = sqlite3_column_int64(s, 1);
		i->machine = db_column_text(s, 2);
		i->agent_run_id = db_column_text(s, 3);
		i->last_seq = sqlite3_column_type(s, 4) == SQLITE_NULL
		    ? -1
		    : sqlite3_column_int64(s, 4);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		db_interrupted_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_fail(db, cause, "list interrupted runs");
	}
	return 0;
}

/* Frees a list from db_run_list_interrupted. */
void
db_interrupted_list_free(struct db_interrupted *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].machine);
		free(list[i].agent_run_id);
	}
	free(list);
}
