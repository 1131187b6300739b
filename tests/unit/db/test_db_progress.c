/* How far a job has come (db/progress.c), as hilab wait reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <cmocka.h>

#include "db/db.h"
#include "tests/unit/db/dbtest.h"

struct fixture {
	char	  *dir;
	struct db *db;
	char	  *cause;
	int64_t	   job;
	int64_t	   runs[3];
};

/* A fresh database with a job of three queued runs on machine "demo". */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	f->dir = dbtest_tmpdir();
	f->db = dbtest_open(f->dir, "hilab.db");
	f->job = dbtest_fixture(f->db, "demo", 3, f->runs);
	*state = f;
	return 0;
}

/* Closes and removes the database. */
static int
teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	dbtest_rmtree(f->dir);
	free(f->dir);
	free(f->cause);
	free(f);
	return 0;
}

/* Stores result seq of run with a wall time of ms milliseconds. */
static void
result(struct fixture *f, int64_t run, int64_t seq, bool warmup, int64_t ms)
{
	struct db_result r = { .run = run,
		.seq = seq,
		.warmup = warmup,
		.wall_ns = ms * 1000000 };

	if (db_run_result_insert(f->db, &r, &f->cause) != 1)
		fail_msg("%s", f->cause);
}

/* Runs sql on the connection (times the API sets from the clock). */
static void
exec(struct fixture *f, const char *sql)
{
	assert_int_equal(sqlite3_exec(db_sqlite(f->db), sql, NULL, NULL, NULL),
	    SQLITE_OK);
}

/* Only running runs are listed, with their stored iterations summed. */
static void
test_progress_running(void **state)
{
	struct fixture	   *f = *state;
	struct db_progress *v;
	size_t		    n;

	assert_int_equal(db_run_progress(f->db, f->job, &v, &n, &f->cause), 0);
	assert_int_equal(n, 0);
	db_progress_free(v, n);
	assert_int_equal(db_run_start(f->db, f->runs[0], "a0", "{}", &f->cause),
	    0);
	assert_int_equal(db_run_start(f->db, f->runs[1], "a1", "{}", &f->cause),
	    0);
	result(f, f->runs[0], 0, true, 1000);
	result(f, f->runs[0], 1, false, 3000);
	assert_int_equal(db_run_progress(f->db, f->job, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].run, f->runs[0]);
	assert_string_equal(v[0].machine, "demo");
	assert_string_equal(v[0].benchmark, "hackbench");
	assert_string_equal(v[0].params, "groups=2");
	assert_int_equal(v[0].iterations, 5);
	assert_int_equal(v[0].warmups, 1);
	assert_true(v[0].started_at > 0);
	assert_int_equal(v[0].results, 2);
	assert_int_equal(v[0].timed, 2);
	assert_int_equal(v[0].wall_ns, 4000000000LL);
	assert_int_equal(v[1].run, f->runs[1]);
	assert_int_equal(v[1].results, 0);
	assert_int_equal(v[1].wall_ns, 0);
	db_progress_free(v, n);
}

/* Estimates come from done runs alike only, and from done runs' times. */
static void
test_progress_estimates(void **state)
{
	struct fixture *f = *state;
	int64_t		ns = -1, ms = -1;

	assert_int_equal(db_iteration_estimate(f->db, "demo", "hackbench",
			     "groups=2", &ns, &f->cause),
	    0);
	assert_int_equal(ns, 0);
	assert_int_equal(db_job_run_time(f->db, f->job, &ms, &f->cause), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(db_run_start(f->db, f->runs[0], "a0", "{}", &f->cause),
	    0);
	result(f, f->runs[0], 0, true, 1000);
	result(f, f->runs[0], 1, false, 3000);
	/* A running run does not count yet. */
	assert_int_equal(db_iteration_estimate(f->db, "demo", "hackbench",
			     "groups=2", &ns, &f->cause),
	    0);
	assert_int_equal(ns, 0);
	assert_int_equal(db_run_set_state(f->db, f->runs[0], DB_DONE, NULL,
			     &f->cause),
	    0);
	exec(f, "UPDATE runs SET started_at = 1000, finished_at = 9000");
	assert_int_equal(db_iteration_estimate(f->db, "demo", "hackbench",
			     "groups=2", &ns, &f->cause),
	    0);
	assert_int_equal(ns, 2000000000LL);
	assert_int_equal(db_iteration_estimate(f->db, "demo", "hackbench",
			     "groups=4", &ns, &f->cause),
	    0);
	assert_int_equal(ns, 0);
	assert_int_equal(db_iteration_estimate(f->db, "other", "hackbench",
			     "groups=2", &ns, &f->cause),
	    0);
	assert_int_equal(ns, 0);
	assert_int_equal(db_job_run_time(f->db, f->job, &ms, &f->cause), 0);
	assert_int_equal(ms, 8000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_progress_running, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_progress_estimates, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
