/* The jobs table: the queue the CLI submits to and hilabd works through. */
#include <inttypes.h>
#include <stdlib.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

#define B(s) (1U << (s))

/*
 * A job with its run counts, oldest first; the WHERE clause is appended.
 * Each count goes through runs_job: the `+` keeps SQLite from choosing
 * runs_state, which reads every run of that state, of every job ever
 * stored, for each job listed.
 */
#define JOB_SELECT                                                           \
	"SELECT j.id, j.name, j.file, j.spec, j.state, j.cancel_requested, " \
	"j.submitted_at, j.started_at, j.finished_at, j.error, "             \
	"(SELECT count(*) FROM runs r WHERE r.job = j.id "                   \
	"AND +r.state = 'queued'), "                                         \
	"(SELECT count(*) FROM runs r WHERE r.job = j.id "                   \
	"AND +r.state = 'running'), "                                        \
	"(SELECT count(*) FROM runs r WHERE r.job = j.id "                   \
	"AND +r.state = 'done'), "                                           \
	"(SELECT count(*) FROM runs r WHERE r.job = j.id "                   \
	"AND +r.state = 'failed' AND r.retried_as IS NULL), "                \
	"(SELECT count(*) FROM runs r WHERE r.job = j.id "                   \
	"AND +r.state = 'cancelled') FROM jobs j "

static const struct db_state_table job_states = {
	.name = "job",
	.update_sql = "UPDATE jobs SET state = ?2, "
	    "error = coalesce(?5, error), "
	    "started_at = CASE WHEN ?2 = 'running' THEN ?6 "
	    "ELSE started_at END, "
	    "finished_at = CASE WHEN ?2 IN ('done', 'failed', 'cancelled') "
	    "THEN ?6 ELSE finished_at END "
	    "WHERE id = ?1 AND state IN (?3, ?4)",
	.state_sql = "SELECT state FROM jobs WHERE id = ?1",
	.from = {
		[DB_RUNNING] = B(DB_QUEUED),
		[DB_DONE] = B(DB_RUNNING),
		[DB_FAILED] = B(DB_QUEUED) | B(DB_RUNNING),
		[DB_CANCELLED] = B(DB_QUEUED) | B(DB_RUNNING),
	},
};

/* Queues a job; returns its id. */
int64_t
db_job_insert(struct db *db, const char *name, const char *file,
    const char *spec, char **cause)
{
	static const char sql[] = "INSERT INTO jobs (name, file, spec, "
				  "submitted_at) VALUES (?1, ?2, ?3, ?4)";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, file);
	db_bind_text(s, 3, spec);
	sqlite3_bind_int64(s, 4, db_now_ms());
	if (db_exec_stmt(db, s, "insert job", cause) == -1)
		return -1;
	return sqlite3_last_insert_rowid(db->h);
}

static void job_clear(void *);

/* Fills j from a row of JOB_SELECT. */
static void
job_read(sqlite3_stmt *s, void *row)
{
	struct db_job *j = row;
	char	      *state;
	int	       i;

	j->id = sqlite3_column_int64(s, 0);
	j->name = db_column_text(s, 1);
	j->file = db_column_text(s, 2);
	j->spec = db_column_text(s, 3);
	state = db_column_text(s, 4);
	if (db_state_parse(state, &j->state) == -1)
		j->state = DB_FAILED;
	free(state);
	j->cancel_requested = sqlite3_column_int(s, 5) != 0;
	j->submitted_at = sqlite3_column_int64(s, 6);
	j->started_at = sqlite3_column_int64(s, 7);
	j->finished_at = sqlite3_column_int64(s, 8);
	j->error = db_column_text(s, 9);
	for (i = 0; i < DB_NSTATES; i++)
		j->runs[i] = sqlite3_column_int(s, 10 + i);
}

int
db_job_runs(const struct db_job *j)
{
	int i, n = 0;

	for (i = 0; i < DB_NSTATES; i++)
		n += j->runs[i];
	return n;
}

/* The jobs table's rows for db_rows_read. */
static const struct db_rows job_rows = { sizeof(struct db_job), job_read,
	job_clear };

/* Reads the rows of a bound statement into a list of jobs. */
static int
job_list(struct db *db, sqlite3_stmt *s, const char *what, struct db_job **out,
    size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &job_rows, what, &rows, n, cause);
	*out = rows;
	return rc;
}

/* Runs a JOB_SELECT statement expecting at most one row. */
static struct db_job *
job_one(struct db *db, sqlite3_stmt *s, char **cause)
{
	struct db_job *j = NULL;
	int	       rc;

	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		j = xcalloc(1, sizeof *j);
		job_read(s, j);
	} else if (rc != SQLITE_DONE)
		db_fail(db, cause, "get job");
	sqlite3_reset(s);
	return j;
}

/* Returns a job, or NULL with *cause set. */
struct db_job *
db_job_get(struct db *db, int64_t id, char **cause)
{
	static const char sql[] = JOB_SELECT "WHERE j.id = ?1";
	struct db_job	 *j;
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if ((j = job_one(db, s, cause)) == NULL && *cause == NULL)
		causef(cause, "db \"%s\": no job %" PRId64, db->path, id);
	return j;
}

/* The oldest queued job, or NULL (*cause NULL when there is none). */
struct db_job *
db_job_next_queued(struct db *db, char **cause)
{
	static const char sql[] =
	    JOB_SELECT "WHERE j.state = 'queued' ORDER BY j.id LIMIT 1";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	return job_one(db, s, cause);
}

/* Every job, oldest first, with its run counts. */
int
db_job_list(struct db *db, struct db_job **out, size_t *n, char **cause)
{
	static const char sql[] = JOB_SELECT "ORDER BY j.id";
	sqlite3_stmt	 *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	return job_list(db, s, "list jobs", out, n, cause);
}

/* The queued and running jobs, oldest first (through jobs_state). */
int
db_job_list_active(struct db *db, struct db_job **out, size_t *n, char **cause)
{
	static const char sql[] =
	    JOB_SELECT "WHERE j.state IN ('queued', 'running') ORDER BY j.id";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	return job_list(db, s, "list active jobs", out, n, cause);
}

/* Moves a job to another state. */
int
db_job_set_state(struct db *db, int64_t id, enum db_state to, const char *error,
    char **cause)
{
	return db_state_set(db, &job_states, id, to, error, cause);
}

/* Flags a queued or running job for cancelling. */
int
db_job_cancel_request(struct db *db, int64_t id, char **cause)
{
	static const char sql[] =
	    "UPDATE jobs SET cancel_requested = 1 "
	    "WHERE id = ?1 AND state IN ('queued', 'running')";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	if (db_exec_stmt(db, s, "cancel job", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return db_state_refused(db, &job_states, id, DB_CANCELLED,
		    cause);
	return 0;
}

/* Frees the strings of j. */
static void
job_clear(void *row)
{
	struct db_job *j = row;

	free(j->name);
	free(j->file);
	free(j->spec);
	free(j->error);
}

/* Frees a job from db_job_get or db_job_next_queued; accepts NULL. */
void
db_job_free(struct db_job *j)
{
	if (j == NULL)
		return;
	job_clear(j);
	free(j);
}

/* Frees a list from db_job_list. */
void
db_job_list_free(struct db_job *j, size_t n)
{
	db_rows_free(&job_rows, j, n);
}
