/* The runs and run_results tables: planned runs, their state and results. */
#include <inttypes.h>
#include <stdlib.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

#define B(s) (1U << (s))

#define RUN_SELECT                                                          \
	"SELECT id, job, machine, kernel, benchmark, params, round, boot, " \
	"position, iterations, warmups, state, agent_run_id, started_at, "  \
	"finished_at, facts, error, console, boot_tries FROM runs "

static const struct db_state_table run_states = {
	.name = "run",
	.update_sql = "UPDATE runs SET state = ?2, "
	    "error = coalesce(?5, error), "
	    "started_at = CASE WHEN ?2 = 'running' THEN ?6 "
	    "ELSE started_at END, "
	    "finished_at = CASE WHEN ?2 IN ('done', 'failed', 'cancelled') "
	    "THEN ?6 ELSE finished_at END "
	    "WHERE id = ?1 AND state IN (?3, ?4)",
	.state_sql = "SELECT state FROM runs WHERE id = ?1",
	.from = {
		[DB_RUNNING] = B(DB_QUEUED),
		[DB_DONE] = B(DB_RUNNING),
		[DB_FAILED] = B(DB_QUEUED) | B(DB_RUNNING),
		[DB_CANCELLED] = B(DB_QUEUED) | B(DB_RUNNING),
	},
};

/* Adds a queued run from the plan fields of r; returns its id. */
int64_t
db_run_insert(struct db *db, const struct db_run *r, char **cause)
{
	static const char sql[] =
	    "INSERT INTO runs (job, machine, "
	    "kernel, benchmark, params, round, boot, position, iterations, "
	    "warmups) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, r->job);
	db_bind_text(s, 2, r->machine);
	sqlite3_bind_int64(s, 3, r->kernel);
	db_bind_text(s, 4, r->benchmark);
	db_bind_text(s, 5, r->params != NULL ? r->params : "");
	sqlite3_bind_int(s, 6, r->round);
	sqlite3_bind_int(s, 7, r->boot);
	sqlite3_bind_int(s, 8, r->position);
	sqlite3_bind_int(s, 9, r->iterations);
	sqlite3_bind_int(s, 10, r->warmups);
	if (db_exec_stmt(db, s, "insert run", cause) == -1)
		return -1;
	return sqlite3_last_insert_rowid(db->h);
}

static void run_clear(void *);

/* Fills r from a row of RUN_SELECT. */
static void
run_read(sqlite3_stmt *s, void *row)
{
	struct db_run *r = row;
	char	      *state;

	r->id = sqlite3_column_int64(s, 0);
	r->job = sqlite3_column_int64(s, 1);
	r->machine = db_column_text(s, 2);
	r->kernel = sqlite3_column_int64(s, 3);
	r->benchmark = db_column_text(s, 4);
	r->params = db_column_text(s, 5);
	r->round = sqlite3_column_int(s, 6);
	r->boot = sqlite3_column_int(s, 7);
	r->position = sqlite3_column_int(s, 8);
	r->iterations = sqlite3_column_int(s, 9);
	r->warmups = sqlite3_column_int(s, 10);
	state = db_column_text(s, 11);
	if (db_state_parse(state, &r->state) == -1)
		r->state = DB_FAILED;
	free(state);
	r->agent_run_id = db_column_text(s, 12);
	r->started_at = sqlite3_column_int64(s, 13);
	r->finished_at = sqlite3_column_int64(s, 14);
	r->facts = db_column_text(s, 15);
	r->error = db_column_text(s, 16);
	r->console = db_column_text(s, 17);
	r->boot_tries = sqlite3_column_int(s, 18);
}

/* The runs table's rows for db_rows_read. */
static const struct db_rows run_rows = { sizeof(struct db_run), run_read,
	run_clear };

/* Reads the rows of a bound statement into a list of runs. */
static int
run_list(struct db *db, sqlite3_stmt *s, const char *what, struct db_run **out,
    size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &run_rows, what, &rows, n, cause);
	*out = rows;
	return rc;
}

/* Runs a RUN_SELECT statement expecting at most one row. */
static struct db_run *
run_one(struct db *db, sqlite3_stmt *s, char **cause)
{
	struct db_run *r = NULL;
	int	       rc;

	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		r = xcalloc(1, sizeof *r);
		run_read(s, r);
	} else if (rc != SQLITE_DONE)
		db_fail(db, cause, "get run");
	sqlite3_reset(s);
	return r;
}

/* Returns a run, or NULL with *cause set. */
struct db_run *
db_run_get(struct db *db, int64_t id, char **cause)
{
	static const char sql[] = RUN_SELECT "WHERE id = ?1";
	struct db_run	 *r;
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if ((r = run_one(db, s, cause)) == NULL && *cause == NULL)
		causef(cause, "db \"%s\": no run %" PRId64, db->path, id);
	return r;
}

/* The next queued run of a job on a machine, or NULL. */
struct db_run *
db_run_next(struct db *db, int64_t job, const char *machine, char **cause)
{
	static const char sql[] =
	    RUN_SELECT "WHERE job = ?1 AND "
		       "machine = ?2 AND state = 'queued' "
		       "ORDER BY round, position, id LIMIT 1";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, job);
	db_bind_text(s, 2, machine);
	return run_one(db, s, cause);
}

/*
 * Whether a machine has a queued run of any job (through
 * runs_machine_state): 1, 0, or -1 with *cause set.
 */
int
db_run_queued_on(struct db *db, const char *machine, char **cause)
{
	static const char sql[] = "SELECT EXISTS (SELECT 1 FROM runs WHERE "
				  "machine = ?1 AND state = 'queued')";
	sqlite3_stmt	 *s;
	int		  rc, queued = -1;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, machine);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		queued = sqlite3_column_int(s, 0);
	else
		db_fail(db, cause, "look for queued runs");
	sqlite3_reset(s);
	return queued;
}

/* The runs of a job in plan order. */
int
db_run_list(struct db *db, int64_t job, struct db_run **out, size_t *n,
    char **cause)
{
	static const char sql[] = RUN_SELECT "WHERE job = ?1 "
					     "ORDER BY round, position, id";
	sqlite3_stmt	 *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	return run_list(db, s, "list runs", out, n, cause);
}

/* The first max failed runs of a job by id. */
int
db_run_list_failed(struct db *db, int64_t job, size_t max, struct db_run **out,
    size_t *n, char **cause)
{
	static const char sql[] =
	    RUN_SELECT "WHERE job = ?1 AND "
		       "state = 'failed' ORDER BY id LIMIT ?2";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
	return run_list(db, s, "list failed runs", out, n, cause);
}

/* Marks a queued run running under the agent's run id with its facts. */
int
db_run_start(struct db *db, int64_t id, const char *agent_run_id,
    const char *facts, char **cause)
{
	static const char sql[] =
	    "UPDATE runs SET state = 'running', "
	    "agent_run_id = ?2, facts = ?3, started_at = ?4 "
	    "WHERE id = ?1 AND state = 'queued'";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_text(s, 2, agent_run_id);
	db_bind_text(s, 3, facts);
	sqlite3_bind_int64(s, 4, db_now_ms());
	if (db_exec_stmt(db, s, "start run", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return db_state_refused(db, &run_states, id, DB_RUNNING, cause);
	return 0;
}

/* Moves a run to another state. */
int
db_run_set_state(struct db *db, int64_t id, enum db_state to, const char *error,
    char **cause)
{
	return db_state_set(db, &run_states, id, to, error, cause);
}

/*
 * Runs an UPDATE of one run whose ?1 is the run's id and whose other
 * parameters are bound; it must change that run.
 */
static int
run_update(struct db *db, sqlite3_stmt *s, int64_t id, const char *what,
    char **cause)
{
	sqlite3_bind_int64(s, 1, id);
	if (db_exec_stmt(db, s, what, cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": no run %" PRId64, db->path,
		    id);
	return 0;
}

/* Keeps the console excerpt of a run. */
int
db_run_set_console(struct db *db, int64_t id, const char *excerpt, char **cause)
{
	static const char sql[] = "UPDATE runs SET console = ?2 "
				  "WHERE id = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 2, excerpt);
	return run_update(db, s, id, "set run console", cause);
}

/* Records how many boots the run's kernel took to come up. */
int
db_run_set_boot_tries(struct db *db, int64_t id, int boots, char **cause)
{
	static const char sql[] = "UPDATE runs SET boot_tries = ?2 "
				  "WHERE id = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int(s, 2, boots);
	return run_update(db, s, id, "set run boot tries", cause);
}

/* Marks a run failed because its kernel did not boot on its machine. */
int
db_run_set_boot_failed(struct db *db, int64_t id, char **cause)
{
	static const char sql[] = "UPDATE runs SET boot_failed = 1 "
				  "WHERE id = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	return run_update(db, s, id, "mark a boot failed", cause);
}

/* The first run of the job whose kernel did not boot on the machine. */
int64_t
db_run_boot_failed(struct db *db, int64_t job, int64_t kernel,
    const char *machine, char **cause)
{
	static const char sql[] =
	    "SELECT id FROM runs WHERE job = ?1 AND (?2 = 0 OR kernel = ?2) "
	    "AND (?3 IS NULL OR machine = ?3) AND boot_failed = 1 "
	    "ORDER BY id LIMIT 1";
	sqlite3_stmt *s;
	int64_t	      id = 0;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_int64(s, 2, kernel);
	db_bind_text(s, 3, machine);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		id = db_fail(db, cause, "find a failed boot");
	sqlite3_reset(s);
	return id;
}

/* Records that a run is done again as run again. */
int
db_run_set_retried(struct db *db, int64_t id, int64_t again, char **cause)
{
	static const char sql[] = "UPDATE runs SET retried_as = ?2 "
				  "WHERE id = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 2, again);
	return run_update(db, s, id, "set run retried", cause);
}

/* Cancels the queued runs of a job; returns how many. */
int64_t
db_run_cancel_queued(struct db *db, int64_t job, char **cause)
{
	static const char sql[] =
	    "UPDATE runs SET state = 'cancelled', "
	    "finished_at = ?2 WHERE job = ?1 AND state = 'queued'";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_int64(s, 2, db_now_ms());
	if (db_exec_stmt(db, s, "cancel runs", cause) == -1)
		return -1;
	return sqlite3_changes(db->h);
}

/* Frees the strings of r. */
static void
run_clear(void *row)
{
	struct db_run *r = row;

	free(r->machine);
	free(r->benchmark);
	free(r->params);
	free(r->agent_run_id);
	free(r->facts);
	free(r->error);
	free(r->console);
}

/* Frees a run from db_run_get or db_run_next; accepts NULL. */
void
db_run_free(struct db_run *r)
{
	if (r == NULL)
		return;
	run_clear(r);
	free(r);
}

/* Frees a list from db_run_list. */
void
db_run_list_free(struct db_run *r, size_t n)
{
	db_rows_free(&run_rows, r, n);
}
