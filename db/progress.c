/*
 * How far a job has come, for hilab wait: its running runs with the
 * iterations they stored so far (run_results), and what earlier runs took,
 * from which the time left is estimated.
 */
#include <stdlib.h>

#include "db/db_int.h"

/* Fills p from a row of the progress query. */
static void
progress_read(sqlite3_stmt *s, void *row)
{
	struct db_progress *p = row;

	p->run = sqlite3_column_int64(s, 0);
	p->machine = db_column_text(s, 1);
	p->benchmark = db_column_text(s, 2);
	p->params = db_column_text(s, 3);
	p->round = sqlite3_column_int(s, 4);
	p->iterations = sqlite3_column_int(s, 5);
	p->warmups = sqlite3_column_int(s, 6);
	p->started_at = sqlite3_column_int64(s, 7);
	p->results = sqlite3_column_int(s, 8);
	p->timed = sqlite3_column_int(s, 9);
	p->wall_ns = sqlite3_column_int64(s, 10);
}

/* Frees the strings of p. */
static void
progress_clear(void *row)
{
	struct db_progress *p = row;

	free(p->machine);
	free(p->benchmark);
	free(p->params);
}

static const struct db_rows progress_rows = { sizeof(struct db_progress),
	progress_read, progress_clear };

/* The running runs of a job, oldest start first. */
int
db_run_progress(struct db *db, int64_t job, struct db_progress **out, size_t *n,
    char **cause)
{
	static const char sql[] =
	    "SELECT r.id, r.machine, r.benchmark, r.params, r.round, "
	    "r.iterations, r.warmups, COALESCE(r.started_at, 0), "
	    "COUNT(rr.seq), COUNT(NULLIF(rr.wall_ns, 0)), "
	    "COALESCE(SUM(rr.wall_ns), 0) "
	    "FROM runs r LEFT JOIN run_results rr ON rr.run = r.id "
	    "WHERE r.job = ?1 AND r.state = 'running' "
	    "GROUP BY r.id ORDER BY r.started_at, r.id";
	sqlite3_stmt *s;
	void	     *rows = NULL;
	int	      rc;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	rc = db_rows_read(db, s, &progress_rows, "read progress", &rows, n,
	    cause);
	*out = rows;
	return rc;
}

/* Frees a list from db_run_progress; accepts NULL. */
void
db_progress_free(struct db_progress *v, size_t n)
{
	db_rows_free(&progress_rows, v, n);
}

/* Steps a bound statement of one integer into *v (NULL: 0). */
static int
progress_one(struct db *db, sqlite3_stmt *s, int64_t *v, char **cause)
{
	int rc = sqlite3_step(s);

	*v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, cause, "read progress");
	return 0;
}

/* The mean wall time of an iteration of earlier done runs alike (ns). */
int
db_iteration_estimate(struct db *db, const char *machine, const char *benchmark,
    const char *params, int64_t *ns, char **cause)
{
	static const char sql[] =
	    "SELECT CAST(AVG(NULLIF(rr.wall_ns, 0)) AS INTEGER) "
	    "FROM runs r JOIN run_results rr ON rr.run = r.id "
	    "WHERE r.machine = ?1 AND r.state = 'done' AND "
	    "r.benchmark = ?2 AND r.params = ?3";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, machine);
	db_bind_text(s, 2, benchmark);
	db_bind_text(s, 3, params);
	return progress_one(db, s, ns, cause);
}

/* The mean time from start to end of the done runs of a job (ms). */
int
db_job_run_time(struct db *db, int64_t job, int64_t *ms, char **cause)
{
	static const char sql[] =
	    "SELECT CAST(AVG(finished_at - started_at) AS INTEGER) FROM runs "
	    "WHERE job = ?1 AND state = 'done' AND started_at IS NOT NULL "
	    "AND finished_at IS NOT NULL";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	return progress_one(db, s, ms, cause);
}
